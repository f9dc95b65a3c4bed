#include "platform/timeline/bus_utilisation.h"
#include <algorithm>

namespace latsim::platform::timeline {
namespace {

// Busy time of a train from its start to x: whole bursts, then the part of the
// burst in progress at x.
uint64_t busy_until(uint64_t start, uint64_t end, uint64_t period, uint64_t tenure, uint64_t x) {
  if (x <= start) return 0;
  const uint64_t d = std::min(x, end) - start;
  if (period == 0) return d;
  const uint64_t k = d / period;
  return k * tenure + std::min(d - k * period, tenure);
}

}  // namespace

void BusUtilisation::add_span(uint64_t from, uint64_t to, uint64_t period, uint64_t tenure) {
  if (to <= from || dt_ == 0) return;
  // Time before the first unreported interval was already reported: count it from there.
  for (uint64_t i = std::max(from / dt_, next_); i * dt_ < to; ++i) {
    const uint64_t a = std::max(from, i * dt_), b = std::min(to, (i + 1) * dt_);
    if (b <= a) continue;
    const uint64_t busy =
        busy_until(from, to, period, tenure, b) - busy_until(from, to, period, tenure, a);
    if (busy) busy_[i] += busy;
  }
}

void BusUtilisation::add_train(uint64_t start, uint64_t end, uint64_t period, uint64_t tenure) {
  add_span(start, end, period, std::min(tenure, period ? period : tenure));
}

void BusUtilisation::add_busy(uint64_t from, uint64_t to) { add_span(from, to, 0, 0); }

}  // namespace latsim::platform::timeline
