#include "workloads/latencytest_samples.h"
#include <algorithm>

namespace latsim::workloads {

void LatencytestSamples::add(double t_s, double write_ms, double loop_ms) {
  if (columns.empty() || to_s <= from_s) return;
  const double x = (t_s - from_s) / (to_s - from_s) * double(columns.size());
  auto& c = columns[size_t(std::clamp(x, 0.0, double(columns.size() - 1)))];
  const auto w = float(write_ms), l = float(loop_ms);
  if (c.n++ == 0) {
    c.write_min = c.write_max = w;
    c.cpu_min = c.cpu_max = l;
  } else {
    c.write_min = std::min(c.write_min, w), c.write_max = std::max(c.write_max, w);
    c.cpu_min = std::min(c.cpu_min, l), c.cpu_max = std::max(c.cpu_max, l);
  }
  samples++;
}

}  // namespace latsim::workloads
