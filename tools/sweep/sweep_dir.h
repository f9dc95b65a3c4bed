#pragma once
// Housekeeping of a sweep's output directory, shared by `sweep` and `sweep-merge`.
#include <filesystem>
#include <string>

namespace latsim::sweep {

// `out` as an absolute path, refusing the file-system root, the working directory and its
// parents (a sweep never writes where it would bury the user's own files).
std::filesystem::path checked_sweep_dir(const std::string& out);

// An exclusive lock on DIR/.lock for this process's lifetime (not inherited by children).
// Throws when another sweep or merge holds it.
class DirLock {
 public:
  explicit DirLock(const std::filesystem::path& dir);
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace latsim::sweep
