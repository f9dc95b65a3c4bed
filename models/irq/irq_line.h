#pragma once
// A wire from an interrupt source (PIT OUT0, IDE INTRQ, ...) to one or more
// controller inputs (8259A IRn, IO-APIC INTINn). Propagation is immediate at the
// current simulated time, like a board trace.
#include <vector>
#include "models/common/probe.h"

namespace latsim::irq {

class IrqSink {
 public:
  virtual ~IrqSink() = default;
  // Level of input `pin` changed; edge-triggered inputs latch on 0 -> 1.
  virtual void irq_set(unsigned pin, bool level) = 0;
};

class IrqLine {
 public:
  void connect(IrqSink& sink, unsigned pin) { taps_.push_back({&sink, pin}); }
  void set(bool level) {
    if (level == level_) return;
    level_ = level;
    if (probe_) probe_->irq_line(probe_name_, sc_core::sc_time_stamp(), level);
    for (auto& t : taps_) t.sink->irq_set(t.pin, level);
  }
  void pulse() {
    set(true);
    set(false);
  }  // one edge, as PIT mode 2 gives per period
  bool level() const { return level_; }
  void set_probe(SignalProbe* p, const char* name) { probe_ = p, probe_name_ = name; }

 private:
  struct Tap {
    IrqSink* sink;
    unsigned pin;
  };
  std::vector<Tap> taps_;
  bool level_ = false;
  SignalProbe* probe_ = nullptr;
  const char* probe_name_ = "";
};

// Delivery mode field of IO-APIC redirection entries / local APIC LVTs (82093AA 3.2.4).
enum class DeliveryMode : unsigned {
  Fixed = 0,
  LowestPriority = 1,
  Smi = 2,
  Nmi = 4,
  Init = 5,
  ExtInt = 7
};

// The APIC bus between the IO-APIC and the CPUs' local APICs (a 3-wire serial
// bus on the P6 family, not PCI: delivery is not held off by PCI masters).
class ApicBus {
 public:
  virtual ~ApicBus() = default;
  virtual void deliver(unsigned dest_apic_id, unsigned vector, DeliveryMode mode) = 0;
  // Logical destination mode (entry bit 11 = 1): `mda` is matched against each local
  // APIC's LDR, as Linux 2.6 programs SMP IO-APIC entries (flat, lowest priority).
  // Buses that do not model logical mode fall back to treating the MDA as an APIC ID.
  virtual void deliver_logical(unsigned mda, unsigned vector, DeliveryMode mode) {
    deliver(mda, vector, mode);
  }
};

// Lets a local APIC's EOI reach the IO-APIC (clears Remote IRR of level inputs).
class EoiListener {
 public:
  virtual ~EoiListener() = default;
  virtual void eoi(unsigned vector) = 0;
};

}  // namespace latsim::irq
