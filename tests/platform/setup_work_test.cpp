// What a configuration costs before its run gets going is bounded by its keys' ranges:
// for every workload kind with all its numeric parameters at their maxima, and for the
// kernel build's costliest combination, the page states the block layer lays out, the
// pages cached before the run, the tasks started and the kernel build's preload draws
// stay under fixed bounds. One case per process: a machine elaborates once.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <ostream>
#include <string>
#include <vector>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"
#include "platform/machine.h"
#include "platform/run.h"
#include "platform/scenario_loader.h"
#include "workloads/kernel_build.h"
#include "workloads/registry.h"

namespace latsim::platform {
namespace {

// Bounds of the work before the run, whatever the keys (a 4096 MB file is 1 M pages).
constexpr uint64_t kMaxLaidOutPages = 2'500'000;  // page states of every file
constexpr uint64_t kMaxCachedPages = 250'000;     // in the page cache after 10 ms
constexpr size_t kMaxTasks = 400;
constexpr uint64_t kMaxPreloadDraws = 1'000'000;  // headers looked at for first_unit

struct SetupCase {
  std::string name, kind;
  std::vector<std::string> sets;
};

void PrintTo(const SetupCase& c, std::ostream* os) { *os << c.name; }

std::string max_of(const params::KeySpec& spec) {
  if (spec.type == params::ValueType::Int) return fmt::format("{}", int64_t(spec.max));
  return fmt::format("{}", spec.max);
}

std::vector<SetupCase> setup_cases() {
  std::vector<SetupCase> cases;
  for (const auto& kind : workloads::kinds()) {
    SetupCase c{kind.name + "_all_at_max", kind.name, {}};
    for (const auto& key : kind.keys)
      if (key.spec.type == params::ValueType::Int || key.spec.type == params::ValueType::Double)
        c.sets.push_back("workload.0." + key.spec.path + "=" + max_of(key.spec));
    cases.push_back(c);
  }
  // Every unit draws all its includes from the largest tree, 100,000 units in.
  cases.push_back(
      {"kernel_build_costliest_preload",
       "kernel_build",
       {"workload.0.header_files=20000", "workload.0.header_kb=32", "workload.0.common_headers=0",
        "workload.0.headers_per_unit=20000", "workload.0.first_unit=100000"}});
  return cases;
}

class SetupWork : public testing::TestWithParam<SetupCase> {};

TEST_P(SetupWork, IsBoundedByTheRanges) {
  const SetupCase& c = GetParam();
  std::string yaml = "schema_version: 1\nname: setup\nduration: 10ms\n";
  if (c.kind == "x11") yaml += "platform:\n  video: {card: permedia2}\n";
  yaml += "workload:\n  - " + c.kind + ": {}\n";
  const Scenario s = load_scenario_text(yaml, "setup.yaml", c.sets);
  Machine m(s);
  kernel::Kernel k(kernel_params(s), m.cpu_ops());
  const auto programs = add_workloads(s, k);
  k.boot();
  sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_MS));
  uint64_t laid_out = 0;
  for (kernel::FileId f = 0; f < k.block().files(); ++f) laid_out += k.block().file_pages(f);
  EXPECT_LE(laid_out, kMaxLaidOutPages);
  EXPECT_LE(k.block().lru().size(), kMaxCachedPages);
  EXPECT_LE(k.tasks().size(), kMaxTasks);
  for (const auto* p : programs)
    if (const auto* kb = dynamic_cast<const workloads::KernelBuild*>(p))
      EXPECT_LE(kb->stats().preload_draws, kMaxPreloadDraws);
}

INSTANTIATE_TEST_SUITE_P(Kinds, SetupWork, testing::ValuesIn(setup_cases()),
                         [](const testing::TestParamInfo<SetupCase>& i) { return i.param.name; });

}  // namespace
}  // namespace latsim::platform
