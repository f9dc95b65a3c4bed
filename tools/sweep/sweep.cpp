#include "tools/sweep/sweep.h"
#include "tools/log_options.h"

#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/params.h"
#include "platform/output_file.h"
#include "platform/output_transaction.h"
#include "platform/scenario_loader.h"
#include "tools/sweep/grid.h"
#include "tools/sweep/grid_check.h"
#include "tools/sweep/results.h"
#include "tools/sweep/runner.h"
#include "tools/sweep/sweep_dir.h"

namespace latsim::sweep {
namespace {

using nlohmann::json;

std::string point_text(const Point& p) {
  std::string s;
  for (const auto& [k, v] : p.values) s += k + "=" + v + " ";
  return s + "seed=" + std::to_string(p.seed);
}

// The manifest this command line describes (loads the scenario once, to learn its name, seed
// and duration, then every point of the grid, to refuse a point `latsim run` would refuse).
Manifest manifest_of(const SweepOptions& o) {
  Manifest m;
  std::vector<std::string> sets = o.sets;
  if (!o.duration.empty()) sets.push_back("duration=" + o.duration);
  std::vector<std::string> load_sets = sets;
  if (!o.seed.empty()) load_sets.push_back("seed=" + o.seed);
  const auto s = platform::load_scenario(o.scenario, load_sets);  // throws ScenarioError

  // Command-line --param/--seeds/--metrics win over the scenario's sweep: block.
  for (const auto& p : o.params.empty() ? s.sweep.params : o.params)
    m.grid.params.push_back(parse_param(p));
  std::vector<std::string> where(m.grid.params.size(), "--param");
  if (o.params.empty()) where = s.sweep.param_locations;
  if (!o.shard.empty()) m.shard = parse_shard(o.shard);
  const std::string metrics = o.metrics.empty() ? s.sweep.metrics : o.metrics;
  m.metrics = metrics.empty() ? default_metrics() : parse_metrics(metrics);
  m.pareto = parse_pareto(o.pareto, o.pareto_quantile);
  m.metrics = with_objectives(m.metrics, m.pareto);
  const size_t seeds = o.seeds ? o.seeds : s.sweep.seeds > 0 ? size_t(s.sweep.seeds) : 1;

  // The seed is per point (--seeds); every other fixed override goes to every point.
  for (const auto& kv : sets)
    if (kv.substr(0, kv.find('=')) != "seed") m.grid.sets.push_back(kv);
  for (size_t i = 0; i < seeds; ++i) m.grid.seeds.push_back(s.seed + i);
  m.grid.check();

  const std::string text = platform::read_input_file(o.scenario, "scenario file");
  check_grid(o.scenario, text, m.grid, where);
  m.scenario_path = o.scenario;
  m.scenario_name = s.name;
  m.scenario_hash = fnv1a_hex(text);
  m.duration_s = s.duration_s;
  return m;
}

// Simulated seconds of point p: its swept or fixed duration, else the scenario's.
double simulated_seconds(const Manifest& m, const Point& p) {
  double d = m.duration_s;
  for (const auto& kv : m.grid.overrides(p))
    if (kv.rfind("duration=", 0) == 0) d = params::parse_duration(kv.substr(9)).value_or(d);
  return d;
}

void dry_run(const Manifest& m) {
  const auto& g = m.grid;
  std::vector<std::string> dims;
  for (const auto& p : g.params) dims.push_back(fmt::format("{} ({})", p.key, p.values.size()));
  dims.push_back(fmt::format("seeds ({})", g.seeds.size()));
  const auto idx = m.indices();
  double longest = 0;  // for a batch system's time limit (tools/sweep-slurm.sh)
  for (size_t i : idx) longest = std::max(longest, simulated_seconds(m, g.point(i)));
  std::cout << fmt::format("# {}: {} points = {}", m.scenario_name, g.size(),
                           fmt::join(dims, " x "));
  if (!m.shard.whole())
    std::cout << fmt::format("; shard {}/{} holds {}", m.shard.index, m.shard.count, idx.size());
  std::cout << fmt::format("; longest point {:g} s simulated\n", longest);
  for (size_t i : idx) {
    const Point p = g.point(i);
    std::cout << fmt::format("{}\t{}\t{}\n", i, p.id, point_text(p));
  }
}

std::string shard_text(const Shard& s) { return fmt::format("{}/{}", s.index, s.count); }

// Prepare DIR for this sweep: a new one, or (--resume) the same sweep's.
void prepare_dir(const fs::path& dir, const Manifest& m, bool resume) {
  const bool has_manifest = fs::exists(dir / "sweep.json");
  bool empty = true;
  std::error_code ec;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir, ec)) empty &= e.path().filename() == ".lock";
  if (!has_manifest && !empty)
    throw std::runtime_error(
        fmt::format("refusing to write a sweep into {}: it is not empty and holds no sweep.json",
                    dir.string()));
  if (has_manifest && !resume)
    throw std::runtime_error(fmt::format(
        "{} holds a sweep already: add --resume to continue it (finished points are kept), "
        "or choose another --out",
        dir.string()));
  if (has_manifest) {
    const Manifest old = Manifest::read(dir);
    auto diff = m.differences(old);
    if (old.shard.index != m.shard.index || old.shard.count != m.shard.count)
      diff.push_back(fmt::format("shard differs ({} vs {})",
                                 m.shard.whole() ? "none" : shard_text(m.shard),
                                 old.shard.whole() ? "none" : shard_text(old.shard)));
    if (!diff.empty())
      throw std::runtime_error(fmt::format("cannot resume: {} holds a different sweep: {}",
                                           dir.string(), fmt::join(diff, "; ")));
  }
}

// The default output directory: out/<scenario>-sweep, one per shard.
std::string default_out(const Manifest& m) {
  std::string out = "out/" + m.scenario_name + "-sweep";
  if (!m.shard.whole()) out += fmt::format("-shard-{}-of-{}", m.shard.index, m.shard.count);
  return out;
}

// Lay out a prepared, locked DIR: the manifest first (a sweep killed now is resumable),
// points/, no leftovers of killed processes.
void start_dir(const fs::path& dir, const Manifest& m) {
  platform::write_file_atomic(dir / "sweep.json", m.to_json().dump(2) + "\n");
  fs::create_directories(dir / "points");
  platform::remove_stale_temporaries(dir / "points");
}

// The points still to run, in grid order, and how many finished in an earlier run.
struct Todo {
  std::vector<Point> points;
  size_t done_before = 0;
};

Todo todo_of(const fs::path& dir, const Manifest& m, const std::vector<size_t>& indices) {
  Todo t;
  for (size_t i : indices) {
    Point p = m.grid.point(i);
    if (platform::run_complete(point_dir(dir, p)))
      ++t.done_before;
    else
      t.points.push_back(std::move(p));
  }
  return t;
}

// Where point p's `latsim run` writes: its point directory, or (keeping less than all) a
// directory in the scratch area whose kept files settle() copies.
fs::path run_dir(const fs::path& dir, const fs::path& scratch, const Point& p) {
  return scratch.empty() ? point_dir(dir, p) : scratch / p.id;
}

// The scratch area of a sweep that keeps less than all: a new directory under TMPDIR,
// removed with everything in it when the sweep ends.
class Scratch {
 public:
  explicit Scratch(Keep keep) {
    if (keep == Keep::All) return;
    std::string tmpl = (fs::temp_directory_path() / "latsim-sweep-XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
      throw std::runtime_error(
          fmt::format("cannot create a scratch directory {}: {}", tmpl, std::strerror(errno)));
    path_ = tmpl;
  }
  ~Scratch() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Whether a point keeps the file at `relative` in its run directory.
bool kept(const std::string& relative, Keep keep) {
  switch (keep) {
    case Keep::All:
      return true;
    case Keep::Traces:
      if (relative.rfind("traces/", 0) == 0) return true;
      [[fallthrough]];
    case Keep::Metrics:
      return relative == "metrics.json";
  }
  return false;
}

// Copy what point p keeps of its finished scratch run, and its stderr if it said anything,
// into its point directory as one transaction (the marker COMPLETE, listing them, last).
void publish(const fs::path& run, const fs::path& pdir, Keep keep, const fs::path& err) {
  platform::OutputTransaction tx(pdir);
  for (const auto& e : fs::recursive_directory_iterator(run)) {
    const std::string rel = e.path().lexically_relative(run).generic_string();
    if (e.is_regular_file() && rel != platform::kCompleteMarker && kept(rel, keep))
      tx.write(rel, read_text(e.path()));
  }
  std::error_code ec;
  if (fs::file_size(err, ec) > 0 && !ec) tx.write("stderr.txt", read_text(err));
  tx.commit();
}

// The `latsim run` of one point, writing into run_dir().
Job point_job(const SweepOptions& o, const Manifest& m, const fs::path& dir,
              const fs::path& scratch, const Point& p, const std::string& self) {
  Job j;
  j.argv = {"/proc/self/exe", "run", o.scenario};
  for (const auto& s : m.grid.overrides(p)) {
    j.argv.push_back("--set");
    j.argv.push_back(s);
  }
  j.argv.insert(j.argv.end(), {"--seed", std::to_string(p.seed), "-q", "--out",
                               run_dir(dir, scratch, p).string()});
  for (const auto& a : cli::child_log_args(o.log)) j.argv.push_back(a);
  j.stderr_path = (dir / "points" / ("." + p.id + ".stderr-" + self)).string();
  j.timeout_s = o.point_timeout;
  return j;
}

// Tidy up after point p's job and record a failure; a message when it failed.
std::optional<std::string> settle(const SweepOptions& o, const fs::path& dir,
                                  const fs::path& scratch, const Point& p, const fs::path& err,
                                  const JobResult& r) {
  const fs::path pdir = point_dir(dir, p);
  const fs::path run = run_dir(dir, scratch, p);
  std::error_code ec;
  // What a killed child leaves: its temporary output directory (platform/output_transaction.h).
  auto remove_child_outputs = [&] {
    for (const char* kind : {"tmp", "old"})
      fs::remove_all(platform::temporary_sibling(run, kind, r.pid), ec);
    if (run != pdir) fs::remove_all(run, ec);
  };
  if (r.outcome == Outcome::Interrupted) {
    remove_child_outputs();
    fs::remove(err, ec);
    return std::nullopt;
  }
  const bool finished = r.ok() && platform::run_complete(run);
  if (finished) {
    if (run != pdir) {
      publish(run, pdir, o.keep, err);
      remove_child_outputs();
    }
    fs::remove(point_failure(dir, p), ec);
    fs::remove(point_stderr(dir, p), ec);
    if (run == pdir && fs::file_size(err, ec) > 0 && !ec)
      fs::rename(err, pdir / "stderr.txt", ec);
    else
      fs::remove(err, ec);
    return std::nullopt;
  }
  remove_child_outputs();
  const std::string error =
      r.ok() ? "exited 0 without completing its output directory" : r.describe();
  const std::string tail = tail_of(err.string());
  fs::rename(err, point_stderr(dir, p), ec);
  write_failure(dir, p, error, tail);
  std::string last = tail;
  if (const auto nl = last.rfind('\n'); nl != std::string::npos) last = last.substr(nl + 1);
  return fmt::format("sweep: point {} ({}) failed: {}{}", p.index, point_text(p), error,
                     last.empty() ? "" : ": " + last);
}

// After a signal: what is kept and how to go on; the exit status.
int report_interrupted(const fs::path& dir, const Manifest& m, const std::vector<size_t>& indices,
                       int signal) {
  size_t finished = 0;
  for (size_t i : indices) finished += platform::run_complete(point_dir(dir, m.grid.point(i)));
  std::cerr << fmt::format(
      "sweep: stopped by signal {}; {} of {} points finished and kept in {}/points; "
      "run the same command with --resume to go on\n",
      signal, finished, indices.size(), dir.string());
  return 128 + signal;
}

// Result files, sweep-run-info.json and the summary; the exit status.
int finish(const SweepOptions& o, const fs::path& dir, const Manifest& m,
           const std::vector<size_t>& indices, const RunnerOptions& ro, const RunSummary& sum,
           std::chrono::steady_clock::time_point t0) {
  const size_t total = indices.size();
  const auto results = collect(dir, m, indices);
  const auto files = write_results(dir, m, results);
  size_t failed = 0;
  for (const auto& r : results) failed += r.status != Status::Ok;

  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const json info = {{"wall_seconds", std::round(wall * 1000) / 1000},
                     {"jobs", ro.jobs},
                     {"points", total},
                     {"already_finished", ro.done_before},
                     {"run", sum.finished},
                     {"failed_now", sum.failed},
                     {"failed", failed}};
  platform::write_file_atomic(dir / "sweep-run-info.json", info.dump(2) + "\n");

  if (!o.quiet) {
    std::cout << markdown(m, results);
    std::cout << fmt::format(
        "\n{} of {} points finished ({} run now, {} already), {} failed; "
        "{:.1f} s wall, -j {}\noutputs in {}/: {}\n",
        total - failed, total, sum.finished - sum.failed, ro.done_before, failed, wall, ro.jobs,
        dir.string(), fmt::join(files, ", "));
  }
  if (failed)
    std::cerr << fmt::format("sweep: {} of {} points failed (see {}/results.md)\n", failed, total,
                             dir.string());
  const auto unknown = unknown_metrics(dir, m, results);
  for (const auto& u : unknown)
    std::cerr << fmt::format(
        "sweep: error: {}\nsweep: fix --metrics (or --pareto) and run the same command with "
        "--resume: the "
        "results are rewritten and no point runs again\n",
        u);
  return unknown.empty() ? failed_status(failed) : kErrorStatus;
}

}  // namespace

int failed_status(size_t failed) { return failed == 0 ? 0 : failed > 100 ? 101 : int(failed); }

int run_sweep(const SweepOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const Manifest m = manifest_of(o);
  if (o.dry_run) {
    dry_run(m);
    return 0;
  }
  const fs::path dir = checked_sweep_dir(o.out.empty() ? default_out(m) : o.out);
  platform::remove_stale_temporaries(dir);  // a killed sweep's half-written manifest
  prepare_dir(dir, m, o.resume);            // refuse before touching anything else
  fs::create_directories(dir);
  const DirLock lock(dir);
  prepare_dir(dir, m, o.resume);  // again, now that no other sweep can write here
  start_dir(dir, m);

  const auto indices = m.indices();
  const Todo todo = todo_of(dir, m, indices);
  const Scratch scratch(o.keep);
  std::vector<Job> jobs;
  const std::string self = std::to_string(::getpid());
  for (const auto& p : todo.points) jobs.push_back(point_job(o, m, dir, scratch.path(), p, self));

  RunnerOptions ro;
  ro.jobs = o.jobs ? o.jobs : default_jobs();
  ro.progress = !o.quiet;
  if (!::isatty(STDERR_FILENO)) ro.line_every_s = o.progress_interval;
  ro.label = m.shard.whole() ? "sweep" : "sweep shard " + shard_text(m.shard);
  ro.noun = "points";
  ro.done_before = todo.done_before;
  const RunSummary sum = run_jobs(jobs, ro, [&](size_t k, const JobResult& r) {
    return settle(o, dir, scratch.path(), todo.points[k], jobs[k].stderr_path, r);
  });
  if (sum.signal) return report_interrupted(dir, m, indices, sum.signal);
  return finish(o, dir, m, indices, ro, sum, t0);
}

}  // namespace latsim::sweep
