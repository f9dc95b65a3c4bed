#include "tools/sweep/sweep_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>
#include <stdexcept>

namespace latsim::sweep {

namespace fs = std::filesystem;

fs::path checked_sweep_dir(const std::string& out) {
  fs::path dir = fs::absolute(out).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();
  const fs::path cwd = fs::current_path().lexically_normal();
  const auto rel = fs::relative(cwd, dir);
  if (dir == dir.root_path() || (!rel.empty() && *rel.begin() != ".."))
    throw std::runtime_error(fmt::format(
        "refusing to write a sweep to {}: it holds the working directory", dir.string()));
  if (fs::exists(dir) && !fs::is_directory(dir))
    throw std::runtime_error(fmt::format("{} exists and is not a directory", dir.string()));
  return dir;
}

DirLock::DirLock(const fs::path& dir) {
  const std::string path = (dir / ".lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(fmt::format("cannot create {}", path));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error(
        fmt::format("another latsim sweep or sweep-merge is writing to {}", dir.string()));
  }
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace latsim::sweep
