#pragma once
// PCI 2.1 3.5.4: the latency timer counts bus clocks from FRAME#; once it has
// expired and GNT# is removed, the master ends its transaction at the next
// data phase (Memory Write and Invalidate finishes its cache line).
#include "models/common/time.h"

namespace latsim::pci {

class LatencyTimer {
 public:
  LatencyTimer(int clocks, sc_time bus_clock) : clocks_(clocks), clk_(bus_clock) {}

  int clocks() const { return clocks_; }
  void set_clocks(int c) { clocks_ = c; }

  // When a tenure that began at `frame` and would naturally end at `natural_end`
  // really ends if GNT# is removed at `gnt_removed`.
  sc_time tenure_end(sc_time frame, sc_time natural_end, sc_time gnt_removed,
                     int mwi_finish_clocks = 0) const {
    sc_time expiry = frame + clk_ * double(clocks_);
    sc_time release =
        (gnt_removed > expiry ? gnt_removed : expiry) + clk_ * double(1 + mwi_finish_clocks);
    return release < natural_end ? release : natural_end;
  }

  // The same for a Memory Write and Invalidate master (PCI 2.1 3.5.4): it may stop
  // only when a whole cache line (`line_clocks` data phases, the first one the clock
  // after FRAME#) is done, so the release rounds up to the next line boundary.
  sc_time tenure_end_mwi(sc_time frame, sc_time natural_end, sc_time gnt_removed,
                         int line_clocks) const {
    const sc_time plain = tenure_end(frame, sc_core::sc_max_time(), gnt_removed);
    if (line_clocks <= 0) return plain < natural_end ? plain : natural_end;
    const sc_time data0 = frame + clk_;
    const sc_time line = clk_ * double(line_clocks);
    const uint64_t lines = (to_ps(plain - data0) + to_ps(line) - 1) / to_ps(line);
    const sc_time release = data0 + ps(lines * to_ps(line));
    return release < natural_end ? release : natural_end;
  }

 private:
  int clocks_;
  sc_time clk_;
};

}  // namespace latsim::pci
