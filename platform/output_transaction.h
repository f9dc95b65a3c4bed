#pragma once
// A run's outputs as one transaction. The temporary directory ".NAME.tmp-PID" beside the
// output directory is made before the simulation starts, so an unwritable output directory
// fails at once; every file of the run goes into it, and files that live elsewhere (a
// timeline, a VCD) are streamed to ".FILE.tmp-PID" beside their target. commit() writes
// the completion marker last, makes every file and directory durable (syncfs; the streamed
// files are fsync'd) and renames them into place, syncing the parents. Destroyed
// uncommitted (a write failed), it removes all it wrote; a process killed midway leaves
// only temporaries, which the next run into the same parent removes.
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace latsim::platform {

// The file a complete run directory holds, written last: its presence means every other
// file is whole. It lists them, one relative path a line.
inline constexpr const char* kCompleteMarker = "COMPLETE";

// Whether `dir` holds a complete run (its marker is there).
bool run_complete(const std::filesystem::path& dir);

class OutputTransaction {
 public:
  // Makes the temporary directory beside `final_dir` (and its parents); throws OutputError.
  // Errors name the files as `final_dir` spells them.
  explicit OutputTransaction(const std::filesystem::path& final_dir);
  ~OutputTransaction();
  OutputTransaction(const OutputTransaction&) = delete;
  OutputTransaction& operator=(const OutputTransaction&) = delete;

  // A file of the run, `relative` to its directory ("traces/max.txt"); errors name the
  // final path.
  void write(const std::string& relative, std::string_view text);
  // A directory of the run, there even when nothing is written into it.
  void add_directory(const std::string& relative);
  // Where to stream a file (a timeline, a VCD) that `path` names: a bare file name, or a
  // path inside the run directory, is a file of the run itself, streamed into the temporary
  // directory and committed with it; anything else is a temporary beside `path` (its
  // directory made), renamed to `path` by commit().
  std::string stage(const std::string& path);
  // The marker, one syncfs, then the renames; throws OutputError.
  void commit();

  const std::filesystem::path& temporary_dir() const { return tmp_; }  // .NAME.tmp-PID
  // After commit(): the run directory's files (relative, sorted, the marker too), and the
  // files streamed beside it (as their paths were given).
  const std::vector<std::string>& files() const { return files_; }
  std::vector<std::string> files_beside() const;

 private:
  void publish_staged();
  void swap_into_place();

  std::filesystem::path shown_, final_, tmp_;  // final_, tmp_: absolute
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> staged_;  // tmp, final
  std::vector<std::string> staged_shown_;                                        // as given
  std::vector<std::string> files_;
  int dir_fd_ = -1;       // the temporary directory, for syncfs
  size_t published_ = 0;  // staged files already renamed to their final names
  bool committed_ = false;
};

}  // namespace latsim::platform
