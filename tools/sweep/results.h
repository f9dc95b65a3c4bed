#pragma once
// A sweep's directory and what is written into it:
//
//   sweep.json              the manifest: scenario (path, name, content hash), fixed
//                           overrides, params, seeds, metrics, shard
//   points/<id>/            one finished point: a `latsim run` output directory (written
//                           atomically by the child; with --keep, only the kept files),
//                           plus stderr.txt if it said anything; finished only when it
//                           holds the marker COMPLETE
//   points/<id>.failed.json a point that failed (how, and its stderr tail), with
//   points/<id>.stderr.txt  its whole stderr
//   results.csv/.json/.md   one row per point in grid order (deterministic: no wall times)
//   *.svg                   plots (svg_plot.h); pareto.svg with --pareto
//   sweep-run-info.json     how the last run went (wall time, jobs): the one
//                           non-deterministic file
//
// Results are always regenerated from points/ and the manifest, so a resumed sweep and a
// merge of shards write the same bytes as one uninterrupted run.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/sweep/grid.h"
#include "tools/sweep/pareto.h"

namespace latsim::sweep {

namespace fs = std::filesystem;

// The metrics of the tables and plots when --metrics is not given.
const std::vector<std::string>& default_metrics();

// "a.b,c.d" -> {"a.b", "c.d"}; throws GridError on an empty or malformed path.
std::vector<std::string> parse_metrics(const std::string& text);

// `metrics` followed by the frontier's metrics it lacks: what the tables show.
std::vector<std::string> with_objectives(std::vector<std::string> metrics, const ParetoSpec& p);

struct Manifest {
  std::string scenario_path;  // as given on the command line
  std::string scenario_name;
  std::string scenario_hash;  // fnv1a_hex of the scenario file's bytes
  double duration_s = 0;      // simulated time of a point (unless duration is swept)
  Grid grid;
  std::vector<std::string> metrics;  // includes the frontier's
  ParetoSpec pareto;                 // none: no frontier
  Shard shard;

  nlohmann::json to_json() const;
  // Throws std::runtime_error naming `where` when the manifest is not one.
  static Manifest from_json(const nlohmann::json& j, const std::string& where);
  static Manifest read(const fs::path& dir);  // DIR/sweep.json

  // Why `other` is a different sweep (scenario content, fixed overrides, params, seeds);
  // empty when it is the same one. Path, metrics, frontier and shard do not count.
  std::vector<std::string> differences(const Manifest& other) const;
  // The grid indices this manifest's shard holds, in grid order.
  std::vector<size_t> indices() const;
};

enum class Status { Ok, Failed, Missing };

struct PointResult {
  Point point;
  Status status = Status::Missing;
  std::vector<nlohmann::json> metrics;  // one per manifest metric, null when absent
  std::vector<nlohmann::json> avg;      // the avg_us next to each *max_us metric, or null
  std::string error;                    // Failed: how ("exit status 2", ...)
  std::string stderr_tail;              // Failed: the end of its stderr
};

// Where a point's files are.
fs::path point_dir(const fs::path& dir, const Point& p);
fs::path point_failure(const fs::path& dir, const Point& p);  // points/<id>.failed.json
fs::path point_stderr(const fs::path& dir, const Point& p);   // points/<id>.stderr.txt

// Record a failed point (replacing an earlier record of it).
void write_failure(const fs::path& dir, const Point& p, const std::string& error,
                   const std::string& stderr_tail);

// The state of the given grid points, read from DIR/points.
std::vector<PointResult> collect(const fs::path& dir, const Manifest& m,
                                 const std::vector<size_t>& indices);

// Write results.csv, results.json, results.md and the plots into DIR (each atomically),
// removing plots of an earlier generation that are no longer made. Returns the names of the
// files written.
std::vector<std::string> write_results(const fs::path& dir, const Manifest& m,
                                       const std::vector<PointResult>& results);

// Why each metric of the manifest that no finished point of `results` has is unknown,
// naming the nearest real one; the defaults are exempt (a scenario without cyclictest has
// no workloads.cyclictest.max_us). Read after the runs: metrics.json holds keys only some
// runs have (blame causes, interrupt lines), so no earlier point knows the whole set.
std::vector<std::string> unknown_metrics(const fs::path& dir, const Manifest& m,
                                         const std::vector<PointResult>& results);

// results.md's text (also printed by `latsim sweep` at the end).
std::string markdown(const Manifest& m, const std::vector<PointResult>& results);

std::string read_text(const fs::path& path);

}  // namespace latsim::sweep
