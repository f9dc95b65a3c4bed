#pragma once
// Analytic description of one bus master's traffic: instead of one SystemC
// event per 32-byte burst, a master announces a train of equally spaced
// bursts (one PRD entry's transfer, say) and the bus and host bridge answer
// "when can the CPU get through at time t?" arithmetically.
#include <string>
#include "models/common/time.h"

namespace latsim::pci {

struct BurstTrain {
  int master = 0;         // PCI master number (REQ#/GNT# pair)
  sc_time start;          // first burst's FRAME#
  sc_time end;            // last data phase done
  sc_time period;         // FRAME# to FRAME# of consecutive bursts
  sc_time tenure;         // bus occupancy of one burst (arbitration to idle)
  uint64_t bytes = 0;     // payload moved by the whole train
  bool to_memory = true;  // master writes DRAM (disk read) vs reads it
  // Memory Write and Invalidate: data phases per cache line (0 = plain Memory Write).
  // An MWI master ends its tenure only at a cache-line boundary (PCI 2.1 3.5.4).
  int mwi_line_clocks = 0;
  // End of the back-to-back run of trains this one belongs to: the master keeps REQ#
  // asserted until then (its next entries' data is already there). Zero: `end`.
  sc_time run_end;

  // `bursts` bursts spread evenly over [start, end), each holding the bus for `tenure`.
  static BurstTrain spread(int master, sc_time start, sc_time end, uint32_t bursts, sc_time tenure,
                           uint64_t bytes, bool to_memory);

  bool covers(const sc_time& t) const { return t >= start && t < end; }
  sc_time req_end() const { return run_end > end ? run_end : end; }  // REQ# dropped
  // End of the burst in progress at t (t itself if the bus is idle then).
  sc_time burst_end_at(const sc_time& t) const;
};

}  // namespace latsim::pci
