#pragma once
// The one way a run writes a file: POSIX open, a write loop, fsync and close, every
// return checked, so a full disk or a failing device is an error naming the file, never
// a short or empty file. Also the names of temporaries (".NAME.tmp-PID") and the removal
// of those that dead processes left behind.
//
// Fault injection for the tests: LATSIM_DEBUG_WRITE_BUDGET=BYTES makes writes fail with
// ENOSPC once this process has written BYTES bytes through OutputFile (the write that
// crosses the budget writes up to it, as on a file system that fills up).
#include <sys/types.h>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace latsim::platform {

// "cannot write PATH: REASON" (REASON as strerror says it).
class OutputError : public std::runtime_error {
 public:
  OutputError(const std::filesystem::path& path, const std::string& reason);
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// A file being written. Destroyed before close() (an exception unwound its writer), it
// is removed if it is a regular file: nothing half-written stays behind.
class OutputFile {
 public:
  explicit OutputFile(std::filesystem::path path);  // creates or truncates; throws OutputError
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Durability of the bytes: fsync at close(), or the caller syncs the whole file system
  // later (OutputTransaction: one syncfs for all of a run's files).
  enum class Sync { File, Later };

  void write(std::string_view bytes);  // all of them, or throws OutputError
  // Overwrite bytes already written at `offset` (a header whose counts are known last);
  // false, and nothing written, when the file cannot seek (a pipe). Throws OutputError.
  bool write_at(uint64_t offset, std::string_view bytes);
  void close(Sync sync = Sync::File);  // (fsync and) close; throws OutputError
  const std::filesystem::path& path() const { return path_; }

 private:
  void remove_unfinished();
  std::filesystem::path path_;
  int fd_ = -1;
  bool regular_ = false;
};

// A whole file in one go (OutputFile: written, fsync'd unless Later, closed).
void write_file(const std::filesystem::path& path, std::string_view text,
                OutputFile::Sync sync = OutputFile::Sync::File);
// Replace `path` by `text` through a temporary sibling renamed into place.
void write_file_atomic(const std::filesystem::path& path, std::string_view text);
// Make a directory's entries (created, renamed files) durable. Throws OutputError.
void sync_directory(const std::filesystem::path& dir);

// ".NAME.KIND-PID" beside `path` (KIND: tmp, old): the temporary for it of process PID
// (default: this one).
std::filesystem::path temporary_sibling(const std::filesystem::path& path,
                                        const std::string& kind = "tmp", pid_t pid = 0);

// Whether a process with this pid exists (kill(pid, 0) fails with ESRCH when it does not)
// and is not a zombie.
bool process_alive(pid_t pid);

// Remove the temporaries that dead processes left in `dir`: hidden entries named
// ".NAME.tmp-PID", ".NAME.old-PID" (a run's, a streamed file's, an atomic write's) or
// ".NAME.stderr-PID" (a sweep's) whose process is gone. Those of live processes stay.
void remove_stale_temporaries(const std::filesystem::path& dir);

}  // namespace latsim::platform
