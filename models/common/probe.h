#pragma once
// Hardware signals for waveforms and timelines: device models report edges and
// bus tenures through a pointer that stays null unless a VCD or timeline is being
// written, so an unprobed run does no extra work.
#include <systemc>

namespace latsim {

class SignalProbe {
 public:
  virtual ~SignalProbe() = default;
  // An interrupt wire (PIT OUT0, IDE INTRQ, 8259A INT, ...) changed level.
  virtual void irq_line(const char* name, sc_core::sc_time t, bool level) = 0;
  // A PCI master announced a train of bursts: REQ# from start to end, GNT# for
  // `tenure` at every `period` (times may lie in the future of `now`).
  virtual void pci_train(int master, sc_core::sc_time start, sc_core::sc_time end,
                         sc_core::sc_time period, sc_core::sc_time tenure, uint64_t bytes) = 0;
  // A train announced to start at `old_start` waits for the host bridge's hold: it
  // now runs from `start` to `end`.
  virtual void pci_train_deferred(int /*master*/, sc_core::sc_time /*old_start*/,
                                  sc_core::sc_time /*start*/, sc_core::sc_time /*end*/) {}
  // The host bridge (PCI master 0) owns the bus for one CPU transaction.
  virtual void pci_host_hold(sc_core::sc_time from, sc_core::sc_time to) = 0;
  // A CPU's interrupt flag (EFLAGS.IF) changed.
  virtual void cpu_if(int cpu, sc_core::sc_time t, bool enabled) = 0;
  // A CPU's FSB request (a cache-line miss) was held off by the host bridge from
  // `from` to `to` because PCI `master`'s transfer to memory was under way.
  virtual void fsb_holdoff(int /*cpu*/, sc_core::sc_time /*from*/, sc_core::sc_time /*to*/,
                           int /*master*/) {}
  // A CPU's PCI access to the video card, started at `from`, stalled `to - from` on its full
  // command FIFO.
  virtual void fifo_stall(int /*cpu*/, sc_core::sc_time /*from*/, sc_core::sc_time /*to*/) {}
  // A device level changed (the video card's command-FIFO fill, in entries).
  virtual void counter(const char* /*name*/, sc_core::sc_time /*t*/, uint64_t /*value*/) {}
};

}  // namespace latsim
