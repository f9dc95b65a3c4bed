#include "tools/cli/plots.h"
#include <fmt/format.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include "tools/sweep/svg_plot.h"

namespace latsim::cli {

void write_latency_plots(const platform::Scenario& s, const platform::RunResult& r) {
  int color = 0;
  for (const auto& t : r.histograms) {
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
    const auto path = std::filesystem::path(r.out_dir) / fmt::format("histogram-{}.svg", t.task);
    std::ofstream f(path, std::ios::binary);
    f << sweep::histogram_svg(h);
    if (!f) throw std::runtime_error("cannot write " + path.string());
  }
}

}  // namespace latsim::cli
