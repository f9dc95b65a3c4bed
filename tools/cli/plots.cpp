#include "tools/cli/plots.h"
#include <fmt/format.h>
#include <cmath>
#include "tools/cli/latencytest_plot.h"
#include "tools/sweep/svg_plot.h"

namespace latsim::cli {

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
  return files;
}

}  // namespace latsim::cli
