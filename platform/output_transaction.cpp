#include "platform/output_transaction.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include "platform/output_file.h"

namespace latsim::platform {
namespace fs = std::filesystem;
namespace {

// Make `dir` and its parents; throws OutputError naming `shown`.
void make_directories(const fs::path& dir, const fs::path& shown) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw OutputError(shown, ec.message());
}

void rename_or_throw(const fs::path& from, const fs::path& to, const fs::path& shown) {
  if (std::rename(from.c_str(), to.c_str()) != 0) throw OutputError(shown, std::strerror(errno));
}

}  // namespace

bool run_complete(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / kCompleteMarker, ec);
}

OutputTransaction::OutputTransaction(const fs::path& final_dir)
    : shown_(final_dir), final_(fs::absolute(final_dir).lexically_normal()) {
  if (!final_.has_filename()) final_ = final_.parent_path();  // "out/x/"
  make_directories(final_.parent_path(), shown_);
  remove_stale_temporaries(final_.parent_path());
  tmp_ = temporary_sibling(final_);
  std::error_code ec;
  fs::remove_all(tmp_, ec);  // a dead process's of the same pid
  if (::mkdir(tmp_.c_str(), 0755) != 0) throw OutputError(shown_, std::strerror(errno));
  // Held from here on, so that syncfs reports every writeback error since (Linux >= 5.8).
  dir_fd_ = ::open(tmp_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) {
    const int err = errno;
    fs::remove_all(tmp_, ec);
    throw OutputError(shown_, std::strerror(err));
  }
}

OutputTransaction::~OutputTransaction() {
  if (dir_fd_ >= 0) ::close(dir_fd_);
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(tmp_, ec);
  for (size_t i = 0; i < staged_.size(); ++i)
    fs::remove(i < published_ ? staged_[i].second : staged_[i].first, ec);
}

void OutputTransaction::add_directory(const std::string& relative) {
  make_directories(tmp_ / relative, shown_ / relative);
}

void OutputTransaction::write(const std::string& relative, std::string_view text) {
  const fs::path rel(relative);
  if (rel.has_parent_path()) make_directories(tmp_ / rel.parent_path(), shown_ / rel.parent_path());
  try {
    write_file(tmp_ / rel, text, OutputFile::Sync::Later);  // commit() syncs them all
  } catch (const OutputError& e) {
    throw OutputError(shown_ / rel, e.reason());
  }
}

std::string OutputTransaction::stage(const std::string& path) {
  const fs::path target = fs::absolute(path).lexically_normal();
  const fs::path given(path);
  const fs::path inside = given.has_parent_path() ? target.lexically_relative(final_) : given;
  if (!inside.empty() && *inside.begin() != ".." && inside != ".") {
    if (inside.has_parent_path())
      make_directories(tmp_ / inside.parent_path(), shown_ / inside.parent_path());
    return (tmp_ / inside).string();
  }
  make_directories(target.parent_path(), path);
  remove_stale_temporaries(target.parent_path());
  staged_.emplace_back(temporary_sibling(target), target);
  staged_shown_.push_back(path);
  return staged_.back().first.string();
}

std::vector<std::string> OutputTransaction::files_beside() const { return staged_shown_; }

void OutputTransaction::commit() {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(tmp_))
    if (!e.is_directory()) files.push_back(e.path().lexically_relative(tmp_).generic_string());
  std::sort(files.begin(), files.end());
  std::string list;
  for (const auto& f : files) list += f + "\n";
  write(kCompleteMarker, list);
  files.push_back(kCompleteMarker);
  files_ = std::move(files);
  // One syncfs makes every file and directory in it durable: a tenth of the cost of an
  // fsync per file on a disk where each costs milliseconds (a run writes up to ~60).
  if (::syncfs(dir_fd_) != 0) throw OutputError(shown_, std::strerror(errno));
  publish_staged();
  swap_into_place();
  committed_ = true;
}

// The streamed files (each fsync'd when it was finished) first: once the directory is in
// place, everything is.
void OutputTransaction::publish_staged() {
  std::set<fs::path> parents;
  for (; published_ < staged_.size(); ++published_) {
    const auto& [tmp, target] = staged_[published_];
    rename_or_throw(tmp, target, target);
    parents.insert(target.parent_path());
  }
  for (const auto& p : parents) sync_directory(p);
}

// One atomic exchange with the previous output where the file system has it; otherwise the
// previous output moves aside first, so that no moment lacks a whole directory for long.
void OutputTransaction::swap_into_place() {
  const fs::path parent = final_.parent_path();
  std::error_code ec;
  if (!fs::exists(final_, ec)) {
    rename_or_throw(tmp_, final_, shown_);
  } else if (::renameat2(AT_FDCWD, tmp_.c_str(), AT_FDCWD, final_.c_str(), RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL && errno != ENOSYS) throw OutputError(shown_, std::strerror(errno));
    const fs::path old = temporary_sibling(final_, "old");
    rename_or_throw(final_, old, shown_);
    if (std::rename(tmp_.c_str(), final_.c_str()) != 0) {
      const int err = errno;
      std::rename(old.c_str(), final_.c_str());
      throw OutputError(shown_, std::strerror(err));
    }
    fs::remove_all(old, ec);
  }
  try {
    sync_directory(parent);
  } catch (...) {
    fs::remove_all(final_, ec);  // not known to be durable: not complete either
    throw;
  }
  fs::remove_all(tmp_, ec);  // after an exchange: the previous output
}

}  // namespace latsim::platform
