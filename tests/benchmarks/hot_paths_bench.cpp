// Micro-benchmarks of the simulator's hot paths (not of the simulated machine):
// what every simulated cache miss, mcount entry and random draw costs on the host.
// The whole-run figure is x_real_time in run-info.json.
#include <benchmark/benchmark.h>

#include "common/random.h"
#include "kernel_sim/trace/latency_tracer.h"
#include "models/cpu/l2_residency.h"

namespace {

void BM_L2ResidencyTouch(benchmark::State& state) {
  latsim::cpu::L2Residency l2(8192);
  static const char* const fns[] = {"schedule", "do_IRQ", "spin_lock", "mark_offset_tsc"};
  uint64_t fetched = 0, i = 0;
  for (auto _ : state) {
    fetched += 7;
    benchmark::DoNotOptimize(l2.touch(fns[i++ & 3], 2, fetched));
  }
}
BENCHMARK(BM_L2ResidencyTouch);

void BM_RngUniform(benchmark::State& state) {
  latsim::Rng rng(1, "bench");
  for (auto _ : state) benchmark::DoNotOptimize(rng.uniform());
}
BENCHMARK(BM_RngUniform);

void BM_TracerMcountInSection(benchmark::State& state) {
  latsim::kernel::LatencyTracerParams p;
  p.max_entries = 1u << 20;
  latsim::kernel::LatencyTracer tracer(2, p);
  tracer.begin(0, sc_core::SC_ZERO_TIME, {"schedule", "lock"}, "ksoftirqd", 1, {});
  for (auto _ : state) tracer.mcount(0, sc_core::SC_ZERO_TIME, 1, "sched_clock", "schedule");
}
BENCHMARK(BM_TracerMcountInSection);

}  // namespace

// libsystemc owns main() and calls sc_main.
int sc_main(int argc, char* argv[]) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
