#include "models/chipset/smi_source.h"

namespace latsim::chipset {

params::Table<SmiParams> smi_keys() {
  using namespace params;
  using P = SmiParams;
  return {
      bind(with_source(number("period_us", 0, 10000000, "us",
                              "SMI# from the south bridge's power management every this long (0: "
                              "never); every CPU waits in SMM while the BIOS handler runs, unseen "
                              "by the OS"),
                       "assumption: no board here is known to take SMIs"),
           &P::period_us),
      bind(with_source(number("duration_us", 0, 100000, "us",
                              "the BIOS's SMI handler: time every CPU spends in SMM per SMI"),
                       "assumption: no board here is known to take SMIs"),
           &P::duration_us),
  };
}

SmiSource::SmiSource(sc_core::sc_module_name name, const SmiParams& p) : sc_module(name), p_(p) {
  SC_HAS_PROCESS(SmiSource);
  if (p_.period() > SC_ZERO_TIME && p_.duration() > SC_ZERO_TIME) SC_THREAD(assert_loop);
}

void SmiSource::assert_loop() {
  sc_core::wait(p_.first);
  for (;;) {
    count_++;
    for (auto& pin : pins_) pin(p_.duration());
    sc_core::wait(p_.period());
  }
}

}  // namespace latsim::chipset
