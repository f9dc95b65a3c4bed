#include "models/chipset/smi_source.h"

namespace latsim::chipset {

SmiSource::SmiSource(sc_core::sc_module_name name, const SmiParams& p) : sc_module(name), p_(p) {
  SC_HAS_PROCESS(SmiSource);
  if (p_.period > SC_ZERO_TIME && p_.duration > SC_ZERO_TIME) SC_THREAD(assert_loop);
}

void SmiSource::assert_loop() {
  sc_core::wait(p_.first);
  for (;;) {
    count_++;
    for (auto& pin : pins_) pin(p_.duration);
    sc_core::wait(p_.period);
  }
}

}  // namespace latsim::chipset
