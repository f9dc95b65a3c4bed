// latsim: run and check latency scenarios of a 2004 dual Pentium III box.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <systemc>
#include "common/log.h"
#include "common/text.h"
#include "platform/output_transaction.h"
#include "platform/outputs.h"
#include "platform/run.h"
#include "platform/scenario_loader.h"
#include "platform/scenario_schema.h"
#include "tools/bench/bench.h"
#include "tools/check/census_cli.h"
#include "tools/check/cli.h"
#include "tools/cli/plots.h"
#include "tools/cli/version.h"
#include "tools/explain/explain.h"
#include "tools/log_options.h"
#include "tools/sweep/cli.h"
#include "tools/tune/cli.h"

namespace {

using latsim::platform::Scenario;

struct RunArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::string seed, duration, out;
  bool quiet = false;
  std::string timeline, timeline_window, vcd, trace_dat;
  std::string timeline_detail;
  latsim::log::Config log;
};

std::vector<std::string> overrides(const RunArgs& a) {
  auto sets = a.sets;
  if (!a.seed.empty()) sets.push_back("seed=" + a.seed);
  if (!a.duration.empty()) sets.push_back("duration=" + a.duration);
  if (!a.timeline.empty()) sets.push_back("outputs.timeline=" + a.timeline);
  if (!a.timeline_window.empty()) sets.push_back("outputs.timeline_window=" + a.timeline_window);
  if (!a.timeline_detail.empty()) sets.push_back("outputs.timeline_detail=" + a.timeline_detail);
  if (!a.vcd.empty()) sets.push_back("outputs.vcd=" + a.vcd);
  if (!a.trace_dat.empty()) sets.push_back("outputs.trace_dat=" + a.trace_dat);
  return sets;
}

// A run directory's files as the summary lists them: traces/ as one entry with its count,
// the completion marker left out.
std::vector<std::string> listed(const std::vector<std::string>& files) {
  std::vector<std::string> out;
  size_t traces = 0;
  for (const auto& f : files) {
    if (f.rfind("traces/", 0) == 0)
      ++traces;
    else if (f != latsim::platform::kCompleteMarker)
      out.push_back(f);
  }
  if (traces) out.push_back(fmt::format("traces/ ({} files)", traces));
  return out;
}

void print_summary(const Scenario& s, const latsim::platform::RunResult& r) {
  const auto& m = r.metrics;
  const auto& ri = r.run_info;
  fmt::print("{}: {:.1f} simulated s, seed {}\n", s.name, ri["simulated_seconds"].get<double>(),
             s.seed);
  fmt::print("  latency tracer   max {} us, {} traces over {} us\n",
             m["latency_tracer"]["max_us"].get<uint64_t>(),
             m["latency_tracer"]["traces_over_threshold"].get<uint64_t>(),
             m["latency_tracer"]["threshold_us"].get<uint64_t>());
  for (auto it = m["workloads"].begin(); it != m["workloads"].end(); ++it) {
    if (!it.value().contains("max_us")) continue;
    fmt::print("  {:<16} wakeup min/avg/max {}/{:.1f}/{} us over {} cycles\n", it.key(),
               it.value()["min_us"].get<int64_t>(), it.value()["avg_us"].get<double>(),
               it.value()["max_us"].get<int64_t>(), it.value()["count"].get<uint64_t>());
  }
  fmt::print("  disk             {:.1f} MB/s read, largest request {} KB\n",
             m["disk"]["read_mb_s"].get<double>(), m["disk"]["max_request_kb"].get<uint64_t>());
  fmt::print("  ticks            {} handled, {} lost\n", m["ticks"]["handled"].get<uint64_t>(),
             m["ticks"]["lost"].get<uint64_t>());
  if (m.contains("fpu") && m["fpu"]["corrupted"].get<uint64_t>())
    fmt::print("  FPU              {} corrupted states ({} user, {} kernel MMX)\n",
               m["fpu"]["corrupted"].get<uint64_t>(), m["fpu"]["corrupted_user"].get<uint64_t>(),
               m["fpu"]["corrupted_kernel"].get<uint64_t>());
  fmt::print("  speed            {:.1f}x real time ({:.2f} s wall), {:.0f} events/simulated s\n",
             ri["x_real_time"].get<double>(), ri["wall_seconds"].get<double>(),
             ri["events_per_simulated_s"].get<double>());
  fmt::print("  outputs          {}/: {}\n", r.out_dir, fmt::join(listed(r.files), ", "));
  if (!r.files_beside.empty())
    fmt::print("  beside it        {}\n", fmt::join(r.files_beside, ", "));
}

int cmd_run(const RunArgs& a) {
  latsim::log::configure(a.log);
  Scenario s = latsim::platform::load_scenario(a.scenario, overrides(a));
  // Test hook (tests/tools/sweep_*): die the way a crashing model would when one of the
  // --set overrides is exactly $LATSIM_DEBUG_CRASH_ON_SET.
  if (const char* crash = std::getenv("LATSIM_DEBUG_CRASH_ON_SET")) {
    for (const auto& kv : a.sets) {
      if (kv != crash) continue;
      std::cerr << "latsim: LATSIM_DEBUG_CRASH_ON_SET=" << crash << ": crashing on purpose\n";
      std::abort();
    }
  }
  latsim::platform::RunOptions o;
  o.quiet = a.quiet;
  o.out_dir = !a.out.empty() ? a.out : !s.outputs.dir.empty() ? s.outputs.dir : "out/" + s.name;
  while (o.out_dir.size() > 1 && o.out_dir.back() == '/') o.out_dir.pop_back();
  o.extra_files = [&s](const latsim::platform::RunResult& r) {
    return latsim::cli::latency_plots(s, r);
  };
  auto r = latsim::platform::run_scenario(s, o);
  latsim::log::flush();
  if (!a.quiet) print_summary(s, r);
  return 0;
}

int cmd_validate(const RunArgs& a) {
  Scenario s = latsim::platform::load_scenario(a.scenario, overrides(a));
  fmt::print("{}: ok ({}, {} workload(s), {} s)\n", a.scenario, s.name, s.workload.size(),
             s.duration_s);
  return 0;
}

std::string version() {
  const std::string git = LATSIM_GIT_DESCRIBE;
  return fmt::format("latsim {}{}\nSystemC {}", latsim::platform::kLatsimVersion,
                     git.empty() ? "" : " (" + git + ")", sc_core::sc_release());
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  CLI::App app{
      "latsim: a deterministic latency emulator of a circa-2004 dual Pentium III PC running a\n"
      "preemptible Linux 2.6.9-VP kernel. Latency comes out of modelled mechanisms (bus-master\n"
      "holdoff, port I/O through the PCI and ISA bridges, critical sections), never injected."};
  app.require_subcommand(1);
  app.set_version_flag("--version", version, "Print latsim's and SystemC's versions and exit");
  RunArgs a;
  auto add_common = [&](CLI::App* c) {
    c->add_option("scenario", a.scenario, "Scenario YAML file (schema_version: 1)")->required();
    c->add_option(
         "--set", a.sets,
         "Override a value: a dotted path (platform.pci.latency_timer=32) or a kernel tunable\n"
         "by its real path (/sys/block/hda/queue/max_sectors_kb=32); repeatable")
        ->allow_extra_args(false);  // one KEY=VALUE per --set: the scenario may follow
    c->add_option("--seed", a.seed,
                  "Seed of every component's random generator (same as --set seed=N)");
    c->add_option("--duration", a.duration,
                  "Simulated time, e.g. 30s, 500ms (same as --set duration=T)");
  };
  auto* run = app.add_subcommand("run", "Run one scenario and write its outputs");
  add_common(run);
  run->add_option("--out", a.out, "Output directory (default: out/<scenario-name>/)");
  run->add_flag("-q,--quiet", a.quiet, "Print nothing on success");
  run->add_option("--timeline", a.timeline,
                  "Write a Chrome trace-event JSON timeline (Perfetto, speedscope) to FILE;\n"
                  "a bare file name (or none: timeline.json) lands in the output directory,\n"
                  "a path with a / where it says")
      ->expected(0, 1)
      ->default_str("timeline.json");
  run->add_option("--timeline-window", a.timeline_window,
                  "Limit the timeline and VCD to A..B (12.3s..12.4s) or max:SPAN (the SPAN\n"
                  "around the longest critical section, e.g. max:100ms)");
  run->add_option("--timeline-detail", a.timeline_detail,
                  "Kernel-function slices in the timeline: functions, tasks (none) or auto\n"
                  "(the default: functions with --timeline-window, tasks for a whole run,\n"
                  "where function slices would be most of its size and cost)");
  run->add_option("--vcd", a.vcd,
                  "Write VCD waveforms (IRQ lines, REQ#/GNT#, IF, pid) to FILE; as for\n"
                  "--timeline (none: waves.vcd in the output directory)")
      ->expected(0, 1)
      ->default_str("waves.vcd");
  run->add_option("--trace-dat", a.trace_dat,
                  "Write a trace.dat (sched, irq, preemptirq and bus events) for trace-cmd\n"
                  "report and KernelShark to FILE; as for --timeline (none: trace.dat in the\n"
                  "output directory)")
      ->expected(0, 1)
      ->default_str("trace.dat");
  latsim::cli::add_log_options(run, a.log);
  auto* val =
      app.add_subcommand("validate", "Check a scenario (and --set overrides) without running it");
  add_common(val);
  bool list_keys = false;
  auto* keys =
      app.add_subcommand("keys", "List every scenario key with its type, range and default");
  keys->callback([&] { list_keys = true; });
  std::string list_what;
  auto* list = app.add_subcommand("list", "List what a scenario can set: `list params`");
  list->add_option("what", list_what, "params: every parameter with default, unit and doc")
      ->required()
      ->check(CLI::IsMember({"params"}));
  const latsim::sweep::Commands sweeps(app);       // sweep, sweep-merge
  const latsim::check::Command check(app);         // check
  const latsim::check::CensusCommand traces(app);  // traces
  const latsim::bench::Command bench(app);         // bench
  const latsim::explain::Command explain(app);     // explain
  const latsim::tune::Command tune(app);           // tune

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help or the usage error
    return rc == 0 ? 0 : sweeps.selected() || tune.selected() ? latsim::sweep::kErrorStatus : 2;
  }
  try {
    if (list_keys) {
      std::cout << latsim::platform::schema_reference();
      return 0;
    }
    if (*list) {
      std::cout << latsim::platform::params_table();
      return 0;
    }
    if (sweeps.selected()) return sweeps.run();
    if (check.selected()) return check.run();
    if (traces.selected()) return traces.run();
    if (bench.selected()) return bench.run();
    if (explain.selected()) return explain.run();
    if (tune.selected()) return tune.run();
    if (*run) return cmd_run(a);
    return cmd_validate(a);
  } catch (const latsim::platform::InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "latsim: error: " << latsim::text::escaped(e.what()) << "\n";
    return 1;
  }
}

// Our own main(): libsystemc's prints a banner before sc_main unless the
// environment says not to, so say it first and then hand over as it would.
int main(int argc, char* argv[]) {
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
