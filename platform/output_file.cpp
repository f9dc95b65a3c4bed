#include "platform/output_file.h"
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>

namespace latsim::platform {
namespace fs = std::filesystem;
namespace {

uint64_t bytes_written = 0;  // by this process, through OutputFile

// How many more bytes LATSIM_DEBUG_WRITE_BUDGET lets this process write; none: no limit.
std::optional<uint64_t> write_budget_left() {
  const char* v = std::getenv("LATSIM_DEBUG_WRITE_BUDGET");
  if (!v || !*v || std::string_view(v).find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  const uint64_t budget = std::strtoull(v, nullptr, 10);
  return budget > bytes_written ? budget - bytes_written : 0;
}

std::string error_text(int err) { return std::strerror(err); }

}  // namespace

OutputError::OutputError(const fs::path& path, const std::string& reason)
    : std::runtime_error(fmt::format("cannot write {}: {}", path.string(), reason)),
      reason_(reason) {}

OutputFile::OutputFile(fs::path path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw OutputError(path_, error_text(errno));
  struct stat st {};
  regular_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
}

OutputFile::~OutputFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  remove_unfinished();
}

// Never a device or a pipe the user named (/dev/null), only a file of ours.
void OutputFile::remove_unfinished() {
  if (regular_) ::unlink(path_.c_str());
}

void OutputFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    size_t n = bytes.size();
    if (const auto left = write_budget_left()) {
      if (*left == 0) throw OutputError(path_, error_text(ENOSPC));
      n = size_t(std::min<uint64_t>(n, *left));
    }
    const ssize_t done = ::write(fd_, bytes.data(), n);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) throw OutputError(path_, error_text(done < 0 ? errno : ENOSPC));
    bytes_written += uint64_t(done);
    bytes.remove_prefix(size_t(done));
  }
}

bool OutputFile::write_at(uint64_t offset, std::string_view bytes) {
  if (!regular_) return false;
  while (!bytes.empty()) {
    const ssize_t done = ::pwrite(fd_, bytes.data(), bytes.size(), off_t(offset));
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) throw OutputError(path_, error_text(done < 0 ? errno : ENOSPC));
    offset += uint64_t(done);
    bytes.remove_prefix(size_t(done));
  }
  return true;
}

void OutputFile::close(Sync sync) {
  // EINVAL: a file that cannot be synced (a pipe, /dev/null); its bytes went where they go.
  if (sync == Sync::File && ::fsync(fd_) != 0 && errno != EINVAL)
    throw OutputError(path_, error_text(errno));
  const int fd = fd_;
  fd_ = -1;
  // close() reports a deferred write error (NFS); after EINTR the descriptor is gone.
  if (::close(fd) != 0 && errno != EINTR) {
    const int err = errno;
    remove_unfinished();
    throw OutputError(path_, error_text(err));
  }
}

void write_file(const fs::path& path, std::string_view text, OutputFile::Sync sync) {
  OutputFile f(path);
  f.write(text);
  f.close(sync);
}

void write_file_atomic(const fs::path& path, std::string_view text) {
  const fs::path tmp = temporary_sibling(path);
  write_file(tmp, text);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw OutputError(path, error_text(err));
  }
  sync_directory(path.parent_path().empty() ? fs::path(".") : path.parent_path());
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw OutputError(dir, error_text(errno));
  const bool ok = ::fsync(fd) == 0 || errno == EINVAL;  // EINVAL: a file system without it
  const int err = errno;
  ::close(fd);
  if (!ok) throw OutputError(dir, error_text(err));
}

fs::path temporary_sibling(const fs::path& path, const std::string& kind, pid_t pid) {
  return path.parent_path() /
         fmt::format(".{}.{}-{}", path.filename().string(), kind, long(pid ? pid : ::getpid()));
}

bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0) return errno != ESRCH;
  // A zombie writes nothing more; where no init reaps orphans (a container), it stays one.
  std::ifstream stat(fmt::format("/proc/{}/stat", long(pid)));
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto paren = line.rfind(')');  // "PID (COMM) STATE ...", COMM may hold anything
  return paren == std::string::npos || paren + 2 >= line.size() ||
         (line[paren + 2] != 'Z' && line[paren + 2] != 'X');
}

namespace {

// The pid of a temporary's name ".NAME.KIND-PID", or 0 when it is not one.
pid_t temporary_owner(const std::string& name) {
  const auto dash = name.rfind('-');
  if (name.size() < 2 || name[0] != '.' || dash == std::string::npos) return 0;
  const std::string pid = name.substr(dash + 1);
  if (pid.empty() || pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos)
    return 0;
  const std::string head = name.substr(0, dash);
  for (const std::string_view kind : {".tmp", ".old", ".stderr"})
    if (head.size() > kind.size() + 1 &&
        head.compare(head.size() - kind.size(), kind.size(), kind.data(), kind.size()) == 0)
      return pid_t(std::stol(pid));
  return 0;
}

}  // namespace

void remove_stale_temporaries(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const pid_t owner = temporary_owner(e.path().filename().string());
    if (owner == 0 || process_alive(owner)) continue;
    std::error_code rm;
    fs::remove_all(e.path(), rm);
  }
}

}  // namespace latsim::platform
