#include "tools/cli/plots.h"
#include <fmt/format.h>
#include <cmath>
#include <map>
#include "tools/cli/latencytest_plot.h"
#include "tools/sweep/svg_plot.h"

namespace latsim::cli {

namespace {

// blame-traces.svg: the ledgers of the ten longest kept traces, one bar each, by cause kind.
std::string blame_plot(const platform::Scenario& s, const nlohmann::json& traces) {
  sweep::StackedBars b;
  b.title = fmt::format("{}: where the longest traces' time went", s.name);
  b.subtitle = "blame ledger (traces/blame.json) by cause; latsim explain DIR --trace N";
  b.x_label = "us";
  std::map<std::string, size_t> part;  // cause kind -> column, in order of first appearance
  for (size_t i = 0; i < traces.size() && i < 10; ++i) {
    const auto& t = traces[i];
    b.rows.push_back(
        fmt::format("{} ({} us)", t.value("file", "").substr(0, 9), t.value("latency_us", 0)));
    b.values.emplace_back(b.parts.size(), 0.0);
    for (const auto& c : t["causes"]) {
      const std::string kind = c.value("kind", "");
      const auto [it, added] = part.emplace(kind, b.parts.size());
      if (added) b.parts.push_back(kind);
      auto& row = b.values.back();
      row.resize(b.parts.size(), 0.0);
      row[it->second] += double(c.value("ps", uint64_t(0))) / 1e6;
    }
  }
  return sweep::stacked_bars_svg(b);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> latency_plots(const platform::Scenario& s,
                                                               const platform::RunResult& r) {
  std::vector<std::pair<std::string, std::string>> files;
  int color = 0;
  for (const auto& t : r.plots.histograms) {
    sweep::Histogram h;
    h.title = fmt::format("{}: wakeup latency of {}", s.name, t.task);
    h.subtitle = fmt::format("{} samples over {} simulated s, seed {}", t.samples,
                             sweep::format_number(s.duration_s), s.seed);
    h.x_label = "latency (us)";
    h.buckets = t.buckets;
    h.min = t.min;
    h.avg = std::round(t.avg * 10) / 10;
    h.max = t.max;
    h.color = color++;
    files.emplace_back(fmt::format("histogram-{}.svg", t.task), sweep::histogram_svg(h));
  }
  for (const auto& lt : r.plots.latencytest) {
    const std::string title = fmt::format("{}: {}, per sample", s.name, lt.task);
    const std::string subtitle = fmt::format(
        "{} samples over {} simulated s, seed {}; {} fragments of {} ms, CPU loop {} ms",
        lt.samples, sweep::format_number(s.duration_s), s.seed, lt.fragments,
        sweep::format_number(lt.fragment_ms), sweep::format_number(lt.cpu_ms));
    files.emplace_back(fmt::format("latencytest-{}.svg", lt.task),
                       latencytest_svg(lt, title, subtitle));
  }
  if (r.blame.contains("traces") && !r.blame["traces"].empty())
    files.emplace_back("blame-traces.svg", blame_plot(s, r.blame["traces"]));
  return files;
}

}  // namespace latsim::cli
