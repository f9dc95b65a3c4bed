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

 private:
  int clocks_;
  sc_time clk_;
};

}  // namespace latsim::pci
