#pragma once
// SMI# from the south bridge's power management (the VT82C686B's PM function: its
// timers and USB legacy emulation can be set to raise SMI#). At every assertion the
// BIOS's handler runs in SMM, and every CPU on the FSB stays there until it returns
// (RSM): the OS sees no vector, no trace entry, only time gone (Ingo Molnar on a 459 us
// step no interrupt explained, LKML 2004-08-16: "the only possibility is SMM").
#include <functional>
#include <vector>
#include "common/params.h"
#include "models/common/time.h"

namespace latsim::chipset {

// The platform.smi.* knobs (smi_keys): none by default, as no board here is known to
// take SMIs; and the first assertion's phase, which the platform draws from the seed.
struct SmiParams {
  double period_us = 0;    // between assertions; zero: SMI# never asserted
  double duration_us = 0;  // the handler's time in SMM, which every CPU waits out
  sc_time first;           // the first assertion (its phase: not locked to the PIT)

  sc_time period() const { return sc_time(period_us, SC_US); }
  sc_time duration() const { return sc_time(duration_us, SC_US); }
};
params::Table<SmiParams> smi_keys();

class SmiSource : public sc_core::sc_module {
 public:
  SmiSource(sc_core::sc_module_name name, const SmiParams& p);
  // A CPU's SMI# pin: called with the handler's duration at each assertion.
  void connect(std::function<void(sc_time)> pin) { pins_.push_back(std::move(pin)); }
  uint64_t count() const { return count_; }

 private:
  void assert_loop();
  SmiParams p_;
  std::vector<std::function<void(sc_time)>> pins_;
  uint64_t count_ = 0;
};

}  // namespace latsim::chipset
