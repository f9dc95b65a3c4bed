#pragma once
// PCI bus utilisation for the timeline's counter track: the share of each
// interval of simulated time during which some master (or the host bridge) owns
// the bus. Bus-master trains are announced ahead of time as REQ# spans with a
// burst of `tenure` every `period`, so their busy time is spread exactly over the
// intervals they cover; an interval is reported once simulated time has passed
// its end. Memory holds only the intervals of trains still in progress.
#include <algorithm>
#include <cstdint>
#include <map>

namespace latsim::platform::timeline {

class BusUtilisation {
 public:
  explicit BusUtilisation(uint64_t interval_ps) : dt_(interval_ps) {}
  // A train: a burst of `tenure` at start, start + period, ... until end (period 0: all busy).
  void add_train(uint64_t start, uint64_t end, uint64_t period, uint64_t tenure);
  // The bus owned without a break from `from` to `to`.
  void add_busy(uint64_t from, uint64_t to);
  // Report every interval that ended by `now_ps` whose share differs from the one
  // reported before: emit(interval start in ps, busy share in per mille).
  template <class Emit>
  void flush(uint64_t now_ps, Emit&& emit) {
    for (; (next_ + 1) * dt_ <= now_ps; ++next_) {
      uint64_t busy = 0;
      if (auto it = busy_.find(next_); it != busy_.end()) {
        busy = it->second;
        busy_.erase(it);
      }
      // In tenths of a percent, rounded: what the counter shows.
      const uint64_t permille = (std::min(busy, dt_) * 1000 + dt_ / 2) / dt_;
      if (permille == last_) continue;
      last_ = permille;
      emit(next_ * dt_, permille);
    }
  }

 private:
  void add_span(uint64_t from, uint64_t to, uint64_t period, uint64_t tenure);
  uint64_t dt_;
  uint64_t next_ = 0;                  // first interval not yet reported
  uint64_t last_ = UINT64_MAX;         // share last reported, per mille
  std::map<uint64_t, uint64_t> busy_;  // interval index -> busy ps
};

}  // namespace latsim::platform::timeline
