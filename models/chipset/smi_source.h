#pragma once
// SMI# from the south bridge's power management (the VT82C686B's PM function: its
// timers and USB legacy emulation can be set to raise SMI#). At every assertion the
// BIOS's handler runs in SMM, and every CPU on the FSB stays there until it returns
// (RSM): the OS sees no vector, no trace entry, only time gone (Ingo Molnar on a 459 us
// step no interrupt explained, LKML 2004-08-16: "the only possibility is SMM").
#include <functional>
#include <vector>
#include "models/common/time.h"

namespace latsim::chipset {

struct SmiParams {
  sc_time period = SC_ZERO_TIME;  // between assertions; zero: SMI# never asserted
  sc_time duration;               // the handler's time in SMM, which every CPU waits out
  sc_time first;                  // the first assertion (its phase: not locked to the PIT)
};

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
