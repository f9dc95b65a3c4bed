#include "tools/sweep/merge.h"

#include <fmt/format.h>
#include <iostream>
#include <set>
#include <stdexcept>

#include "platform/output_file.h"
#include "platform/output_transaction.h"
#include "tools/sweep/results.h"
#include "tools/sweep/sweep.h"
#include "tools/sweep/sweep_dir.h"

namespace latsim::sweep {
namespace {

// Copy a finished point's directory, hard-linking its files where the file system allows
// (point outputs are never modified in place), durably into place through a temporary name.
void copy_point(const fs::path& from, const fs::path& to) {
  const fs::path tmp = platform::temporary_sibling(to);
  try {
    fs::remove_all(tmp);
    fs::create_directories(tmp);
    std::vector<fs::path> dirs{tmp};
    for (const auto& e : fs::recursive_directory_iterator(from)) {
      const fs::path dst = tmp / fs::relative(e.path(), from);
      if (e.is_directory()) {
        fs::create_directories(dst);
        dirs.push_back(dst);
        continue;
      }
      std::error_code ec;
      fs::create_hard_link(e.path(), dst, ec);
      if (ec) platform::write_file(dst, read_text(e.path()));
    }
    for (const auto& d : dirs) platform::sync_directory(d);
    fs::rename(tmp, to);
    platform::sync_directory(to.parent_path());
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
}

void copy_file_atomic(const fs::path& from, const fs::path& to) {
  platform::write_file_atomic(to, read_text(from));
}

// The sweep directories to merge (absolute) and their manifests, refused unless they
// hold the same sweep.
struct Inputs {
  std::vector<fs::path> dirs;
  std::vector<Manifest> ms;
};

Inputs read_inputs(const MergeOptions& o) {
  if (o.dirs.empty()) throw std::runtime_error("sweep-merge needs at least one sweep directory");
  Inputs in;
  for (const auto& d : o.dirs) {
    const fs::path p = fs::absolute(d).lexically_normal();
    if (!fs::is_regular_file(p / "sweep.json"))
      throw std::runtime_error(fmt::format("{} is not a sweep directory (no sweep.json)", d));
    in.dirs.push_back(p);
    in.ms.push_back(Manifest::read(p));
  }
  for (size_t i = 1; i < in.ms.size(); ++i) {
    const auto diff = in.ms[0].differences(in.ms[i]);
    if (!diff.empty())
      throw std::runtime_error(fmt::format("refusing to merge {} and {}: not the same sweep: {}",
                                           o.dirs[0], o.dirs[i], fmt::join(diff, "; ")));
  }
  return in;
}

// Into a new directory, or one holding (part of) the same sweep.
void check_out(const fs::path& out, const Manifest& m, const std::string& name) {
  if (fs::exists(out / "sweep.json")) {
    const auto diff = m.differences(Manifest::read(out));
    if (!diff.empty())
      throw std::runtime_error(
          fmt::format("{} holds a different sweep: {}", name, fmt::join(diff, "; ")));
    return;
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(out, ec))
    if (e.path().filename() != ".lock")
      throw std::runtime_error(
          fmt::format("refusing to merge into {}: it is not empty and holds no sweep.json", name));
}

// Point p from the first directory that finished it, else the first that recorded its
// failure; nothing when `out` has it finished already.
void merge_point(const fs::path& out, const std::vector<fs::path>& dirs, const Point& p) {
  if (platform::run_complete(point_dir(out, p))) return;
  for (const auto& d : dirs) {
    if (platform::run_complete(point_dir(d, p))) {
      fs::remove_all(point_dir(out, p));
      copy_point(point_dir(d, p), point_dir(out, p));
      std::error_code ec;
      fs::remove(point_failure(out, p), ec);
      fs::remove(point_stderr(out, p), ec);
      return;
    }
  }
  for (const auto& d : dirs) {
    if (fs::is_regular_file(point_failure(d, p))) {
      copy_file_atomic(point_failure(d, p), point_failure(out, p));
      if (fs::is_regular_file(point_stderr(d, p)))
        copy_file_atomic(point_stderr(d, p), point_stderr(out, p));
      return;
    }
  }
}

// The table and what is missing or failed; the exit status.
int report(const MergeOptions& o, const Inputs& in, const Manifest& m, const fs::path& out,
           const std::vector<PointResult>& results, const std::vector<std::string>& files) {
  size_t failed = 0;
  std::set<std::string> missing_shards;
  size_t missing = 0;
  for (const auto& r : results) {
    failed += r.status == Status::Failed;
    if (r.status != Status::Missing) continue;
    ++missing;
    for (const auto& s : in.ms)
      if (!s.shard.whole())
        missing_shards.insert(fmt::format("{}/{}", r.point.index % s.shard.count, s.shard.count));
  }
  if (!o.quiet) {
    std::cout << markdown(m, results);
    std::cout << fmt::format("\nmerged {} director{} into {}/: {}\n", in.dirs.size(),
                             in.dirs.size() == 1 ? "y" : "ies", out.string(),
                             fmt::join(files, ", "));
  }
  if (missing)
    std::cerr << fmt::format(
        "sweep-merge: {} of {} points are in none of the directories{}; run the sweep with "
        "--out {} --resume to fill them in\n",
        missing, results.size(),
        missing_shards.empty()
            ? ""
            : fmt::format(" (shards {} not given?)", fmt::join(missing_shards, ", ")),
        o.out);
  if (failed)
    std::cerr << fmt::format("sweep-merge: {} of {} points failed (see {}/results.md)\n", failed,
                             results.size(), out.string());
  const auto unknown = unknown_metrics(out, m, results);
  for (const auto& u : unknown) std::cerr << fmt::format("sweep-merge: error: {}\n", u);
  return unknown.empty() ? failed_status(failed + missing) : kErrorStatus;
}

}  // namespace

int run_merge(const MergeOptions& o) {
  const Inputs in = read_inputs(o);
  Manifest m = in.ms[0];
  m.shard = Shard{};
  if (!o.metrics.empty()) m.metrics = parse_metrics(o.metrics);
  if (!o.pareto.empty())
    m.pareto = parse_pareto(o.pareto, o.pareto_quantile);
  else if (o.pareto_quantile)
    m.pareto = parse_pareto(m.pareto.text(), o.pareto_quantile);
  m.metrics = with_objectives(m.metrics, m.pareto);

  const fs::path out = checked_sweep_dir(o.out);
  for (const auto& d : in.dirs)
    if (fs::exists(out) && fs::equivalent(out, d))
      throw std::runtime_error(
          fmt::format("--out {} is one of the directories to merge; merge into a new one", o.out));
  check_out(out, m, o.out);  // before touching anything
  fs::create_directories(out);
  const DirLock lock(out);
  check_out(out, m, o.out);  // again, now that nothing else writes here
  fs::create_directories(out / "points");
  platform::remove_stale_temporaries(out);
  platform::remove_stale_temporaries(out / "points");
  platform::write_file_atomic(out / "sweep.json", m.to_json().dump(2) + "\n");

  const auto all = m.indices();
  for (size_t i : all) merge_point(out, in.dirs, m.grid.point(i));
  const auto results = collect(out, m, all);
  const auto files = write_results(out, m, results);
  return report(o, in, m, out, results, files);
}

}  // namespace latsim::sweep
