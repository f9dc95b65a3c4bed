#include "platform/outputs.h"
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include "platform/scenario_emit.h"
#include "workloads/registry.h"

namespace latsim::platform {
namespace fs = std::filesystem;

params::Table<OutputConfig> output_keys() {
  using params::bind;
  using params::of_type;
  using T = params::ValueType;
  using O = OutputConfig;
  return {
      bind(of_type(T::String, "dir", "output directory (empty: out/<name>/)"), &O::dir),
      bind(of_type(T::String, "timeline",
                   "Chrome trace-event JSON file for Perfetto/speedscope; a bare file name is "
                   "in the output directory (empty: none)"),
           &O::timeline),
      bind(of_type(T::String, "vcd",
                   "VCD waveform file; a bare file name is in the output directory (empty: none)"),
           &O::vcd),
      bind(of_type(T::String, "trace_dat",
                   "trace.dat file for trace-cmd/KernelShark; a bare file name is in the output "
                   "directory (empty: none)"),
           &O::trace_dat),
      bind(of_type(T::String, "timeline_window",
                   "A..B (12.3s..12.4s) or max:SPAN (around the longest section); empty: all"),
           &O::timeline_window),
      bind(params::choice("timeline_detail", {"auto", "functions", "tasks"},
                          "kernel-function slices in the timeline: functions (always), tasks "
                          "(never: tasks, interrupts and the other tracks only), auto (functions "
                          "when outputs.timeline_window is set; a whole run's function slices "
                          "cost most)"),
           &O::timeline_detail),
  };
}

namespace {

// SystemC thread processes under these objects. Counted at the end of the run, so it is the
// live ones then: SystemC deletes a spawned task's thread once it has ended.
size_t count_threads(const std::vector<sc_core::sc_object*>& objects) {
  size_t n = 0;
  for (const auto* o : objects)
    n += size_t(std::string_view(o->kind()) == "sc_thread_process") +
         count_threads(o->get_child_objects());
  return n;
}

}  // namespace

nlohmann::json collect_run_info(const Scenario& s, double wall) {
  const double sim = sc_core::sc_time_stamp().to_seconds();
  return {{"scenario", s.name},
          {"wall_seconds", std::round(wall * 1000) / 1000},
          {"simulated_seconds", std::round(sim * 1e9) / 1e9},
          {"x_real_time", wall > 0 ? std::round(sim / wall * 100) / 100 : 0.0},
          {"delta_cycles", sc_core::sc_delta_count()},
          // Simulator cost: SystemC evaluation phases (delta cycles) per simulated second.
          {"events_per_simulated_s",
           sim > 0 ? std::round(double(sc_core::sc_delta_count()) / sim) : 0.0},
          {"systemc_threads", count_threads(sc_core::sc_get_top_level_objects())},
          {"versions", {{"latsim", kLatsimVersion}, {"systemc", sc_core::sc_version()}}}};
}

namespace {

// The directory a run may write: never the working directory or one of its
// parents, never something that is not a previous latsim output.
fs::path checked_out_dir(const std::string& out) {
  fs::path dir = fs::absolute(out).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "out/x/" -> "out/x"
  const fs::path cwd = fs::current_path().lexically_normal();
  const auto rel = fs::relative(cwd, dir);
  if (dir == dir.root_path() || (!rel.empty() && *rel.begin() != ".."))
    throw std::runtime_error(fmt::format(
        "refusing to write outputs to {}: it holds the working directory", dir.string()));
  if (fs::exists(dir) && !(fs::is_directory(dir) && (fs::is_empty(dir) || run_complete(dir) ||
                                                     fs::exists(dir / "run-info.json"))))
    throw std::runtime_error(
        fmt::format("refusing to replace {}: it is not a latsim output directory", dir.string()));
  return dir;
}

}  // namespace

void check_output_paths(const Scenario& s, const std::string& out_dir) {
  const fs::path dir = checked_out_dir(out_dir);
  // What the run writes itself: a streamed file may not take its place.
  static const std::set<std::string> kOwn{
      "COMPLETE", "metrics.json", "run-info.json", "scenario.resolved.yaml",
      "traces",   "dmesg.txt",    "syslog.txt",    "interrupts.txt"};
  std::set<fs::path> inside;
  for (const auto& [key, file] :
       {std::pair{"outputs.timeline", s.outputs.timeline}, std::pair{"outputs.vcd", s.outputs.vcd},
        std::pair{"outputs.trace_dat", s.outputs.trace_dat}}) {
    if (file.empty()) continue;
    const fs::path given(file);
    const fs::path rel = given.has_parent_path()
                             ? fs::absolute(file).lexically_normal().lexically_relative(dir)
                             : given;
    if (rel.empty() || *rel.begin() == "..") continue;  // beside the run directory
    if (rel == "." || kOwn.count(rel.begin()->string()) || !inside.insert(rel).second)
      throw std::runtime_error(
          fmt::format("{} {}: the run directory {} holds a file of that name already; choose "
                      "another name",
                      key, file, dir.string()));
  }
}

namespace {

// Each workload kind's files (cyclictest.txt, latencytest.txt...), from all its programs.
void write_program_files(const Scenario& s, kernel::Kernel& k,
                         const std::vector<workloads::Program*>& programs, OutputTransaction& tx) {
  const workloads::RunEnd end{
      k, sc_core::sc_time_stamp().to_seconds(),
      [&tx](const std::string& file, const std::string& text) { tx.write(file, text); }};
  for (const auto& kind : workloads::kinds()) {
    if (!kind.outputs) continue;
    std::vector<const workloads::Program*> mine;
    for (size_t i = 0; i < programs.size(); ++i)
      if (s.workload[i].kind == kind.name) mine.push_back(programs[i]);
    kind.outputs(mine, end);
  }
}

// traces/ in the VP tracer's format: every trace over the threshold and the worst.
void write_traces(kernel::Kernel& k, const RunResult& r, OutputTransaction& tx) {
  tx.add_directory("traces");
  auto& tr = k.tracer();
  int n = 0;
  for (const auto& t : tr.traces())
    tx.write("traces/" + kernel::LatencyTracer::file_name(++n, t), tr.format(t));
  if (tr.sections()) tx.write("traces/max.txt", tr.format(tr.max_trace()));
  // Where each trace's time went (platform/blame_json.h), for `latsim explain`.
  if (!r.blame.is_null()) tx.write("traces/blame.json", r.blame.dump(1) + "\n");
}

}  // namespace

void write_outputs(const Scenario& s, kernel::Kernel& k,
                   const std::vector<workloads::Program*>& programs, const RunResult& r,
                   OutputTransaction& tx) {
  tx.write("metrics.json", r.metrics.dump(2) + "\n");
  tx.write("run-info.json", r.run_info.dump(2) + "\n");
  tx.write("scenario.resolved.yaml", scenario_to_yaml(s));
  write_traces(k, r, tx);
  write_program_files(s, k, programs, tx);
  auto& tr = k.tracer();
  // /var/log/messages: the tracer's "new N us maximum-latency" reports.
  tx.write("syslog.txt", tr.syslog("latsim"));

  // /proc/latencytimes as read at the end of the run (2.4.10-preempt).
  if (const kernel::PreemptStats* ps = k.preempt_stats())
    tx.write("preempt-stats.txt", ps->format([&k](unsigned irq) -> std::string {
      const std::string& n = k.irq_desc(irq).name;
      return n.empty() ? std::string("old irq") : n;
    }));

  std::string dmesg;
  for (const auto& l : tr.messages()) dmesg += l + "\n";
  for (const auto& l : k.dmesg()) dmesg += l + "\n";
  tx.write("dmesg.txt", dmesg);
  // /proc/interrupts as read at the end of the run.
  tx.write("interrupts.txt", k.show_interrupts());
}

}  // namespace latsim::platform
