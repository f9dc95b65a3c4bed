#include "tools/explain/whatif.h"
#include <fmt/format.h>
#include <stdlib.h>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include "tools/sweep/runner.h"

namespace latsim::explain {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Switch {
  const char* change;
  const char* set;
};

// The mechanism switches that take a row's cause away (the scenario keys a user would set).
std::vector<Switch> switches_for(const Row& r) {
  if (r.kind == "bus_master") {
    std::vector<Switch> s{{"bus-master holdoff off", "mechanisms.bus_master_holdoff=false"}};
    if (r.name.find("ide") != std::string::npos)
      s.push_back({"IDE DMA off", "kernel.hdparm.dma=off"});
    return s;
  }
  if (r.kind == "interrupt" && r.name == "NMI")
    return {{"NMI watchdog off", "kernel.nmi_watchdog=false"}};
  if (r.kind == "smm") return {{"no SMIs", "platform.smi.period_us=0"}};
  if (r.kind == "isa") return {{"no port 0x80 I/O delays", "mechanisms.isa_io_delay=false"}};
  if (r.kind == "video_fifo") return {{"PCI 2.1 video card (Retry)", "platform.video.pci=2.1"}};
  return {};
}

// The longest section in a rerun, and the longest with the explained one's sites.
void read_rerun(const fs::path& dir, const json& explained, WhatIf& w) {
  std::ifstream in(dir / "traces" / "blame.json");
  if (!in) {
    w.error = "the rerun wrote no traces/blame.json";
    return;
  }
  const json j = json::parse(in);
  auto us = [](const json& t) { return double(t.value("length_ps", uint64_t(0))) / 1e6; };
  // A window is compared with the rerun's windows of its measure (wake-ups, CPU loops,
  // writes), the same label's as "same"; a trace with the rerun's sections, those with its
  // start and end sites as "same".
  const bool wake = is_window(explained);
  std::vector<const json*> all;
  for (const auto& t : j[wake ? "windows" : "traces"])
    if (!wake || t.value("measure", "") == explained.value("measure", "")) all.push_back(&t);
  if (!wake && j.contains("max")) all.push_back(&j["max"]);
  for (const json* t : all) {
    w.max_us = std::max(w.max_us, us(*t));
    const bool same = wake ? (*t)["label"] == explained["label"]
                           : (*t)["started_at"] == explained["started_at"] &&
                                 (*t)["ended_at"] == explained["ended_at"];
    if (same) w.same_us = std::max(w.same_us, us(*t));
  }
  w.ran = true;
  // The rerun's saving against the blamed time: the same section if it was seen, else the max.
  const double before = double(explained.value("length_ps", uint64_t(0))) / 1e6;
  const double after = w.same_us >= 0 ? w.same_us : w.max_us;
  const double blamed = double(w.blamed_ps) / 1e6;
  w.disagrees = after >= 0 && std::fabs((before - after) - blamed) > blamed / 4;
}

}  // namespace

std::vector<WhatIf> plan_whatifs(const Explained& e, size_t n) {
  std::vector<WhatIf> plan;
  for (size_t i = 0; i < e.rows.size() && i < n; ++i) {
    const Row& r = e.rows[i];
    WhatIf w;
    w.cause = r.label;
    w.blamed_ps = r.ps;
    const auto sw = switches_for(r);
    if (sw.empty()) plan.push_back(w);  // said so in the report: no switch for it yet
    for (const Switch& s : sw) {
      bool seen = false;
      for (const auto& p : plan) seen = seen || p.set == s.set;
      if (seen) continue;
      w.change = s.change;
      w.set = s.set;
      plan.push_back(w);
    }
  }
  return plan;
}

void run_whatifs(const fs::path& run_dir, const Explained& e, std::vector<WhatIf>& w, size_t jobs,
                 bool progress) {
  std::string tmpl = (fs::temp_directory_path() / "latsim-whatif-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory");
  const fs::path tmp = tmpl;
  std::vector<sweep::Job> list;
  std::vector<size_t> which;
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i].set.empty()) continue;
    const fs::path out = tmp / fmt::format("rerun-{}", i);
    list.push_back({{"/proc/self/exe", "run", (run_dir / "scenario.resolved.yaml").string(),
                     "--set", w[i].set, "-q", "--out", out.string()},
                    (tmp / fmt::format("rerun-{}.stderr", i)).string()});
    which.push_back(i);
  }
  sweep::RunnerOptions ro;
  ro.jobs = jobs ? jobs : sweep::default_jobs();
  ro.progress = progress;
  ro.label = "whatif";
  ro.noun = "reruns";
  const sweep::RunSummary sum = sweep::run_jobs(
      list, ro, [&](size_t k, const sweep::JobResult& r) -> std::optional<std::string> {
        WhatIf& x = w[which[k]];
        if (!r.ok()) {
          x.error = r.describe() + ": " + sweep::tail_of(list[k].stderr_path, 1);
          return x.error;
        }
        read_rerun(tmp / fmt::format("rerun-{}", which[k]), e.trace, x);
        return std::nullopt;
      });
  std::error_code ec;
  fs::remove_all(tmp, ec);
  if (sum.signal) throw std::runtime_error(fmt::format("interrupted by signal {}", sum.signal));
}

}  // namespace latsim::explain
