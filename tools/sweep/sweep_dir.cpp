#include "tools/sweep/sweep_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>
#include <stdexcept>

#include "tools/sweep/runner.h"

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

void remove_stale_temporaries(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() < 3 || name[0] != '.') continue;
    const auto dash = name.rfind('-');
    if (dash == std::string::npos || dash + 1 == name.size()) continue;
    const std::string pid = name.substr(dash + 1);
    if (pid.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9) continue;
    if (process_alive(pid_t(std::stol(pid)))) continue;
    std::error_code rm;
    fs::remove_all(e.path(), rm);
  }
}

}  // namespace latsim::sweep
