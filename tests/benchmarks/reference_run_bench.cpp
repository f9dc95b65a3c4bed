// The whole reference scenario (scenarios/disk-dma-kernel-build.yaml, 30 simulated
// s) as one benchmark iteration: how many SystemC evaluation phases (delta cycles)
// a simulated second costs, and how much faster than real time it runs. SystemC
// elaborates once per process, so this runs once (filter it to run it alone).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "platform/run.h"
#include "platform/scenario_loader.h"

namespace {

void BM_ReferenceScenario(benchmark::State& state) {
  static bool ran = false;  // one elaboration per process
  for (auto _ : state) {
    if (ran) {
      state.SkipWithError("the reference scenario runs once per process");
      break;
    }
    ran = true;
    const auto s =
        latsim::platform::load_scenario(LATSIM_SOURCE_DIR "/scenarios/disk-dma-kernel-build.yaml");
    latsim::platform::RunOptions o;
    o.quiet = true;
    o.progress = false;
    o.out_dir = (std::filesystem::temp_directory_path() / "latsim-bench-reference").string();
    const auto r = latsim::platform::run_scenario(s, o);
    state.counters["events_per_sim_s"] = r.run_info["events_per_simulated_s"].get<double>();
    state.counters["x_real_time"] = r.run_info["x_real_time"].get<double>();
    state.counters["sim_s"] = r.run_info["simulated_seconds"].get<double>();
  }
}
BENCHMARK(BM_ReferenceScenario)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
