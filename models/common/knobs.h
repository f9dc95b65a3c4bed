#pragma once
// Helpers for the parameter tables device models declare beside their code
// (common/params.h): the IRQ a PCI INTx# is steered to, a function's Latency Timer,
// whether a device is fitted.
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/params.h"

namespace latsim::knobs {

using params::bind_as;
using params::bind_enum;

// An ISA IRQ the south bridge can steer a PCI INTx# to (not 0-2, 6, 8, 13, 14).
inline params::KeySpec intx_irq(std::string path, std::string doc) {
  return params::with_unit(
      params::int_choice(std::move(path), {"3", "4", "5", "7", "9", "10", "11", "12", "15"},
                         std::move(doc)),
      "IRQ");
}

// A PCI function's own Latency Timer, as `setpci -s DEV latency_timer=N` writes it; -1
// leaves the value pcibios_set_master gives every master (platform.pci.latency_timer).
inline params::KeySpec latency_timer(std::string doc) {
  return params::with_source(params::integer("latency_timer", -1, 255, "clocks", std::move(doc)),
                             "PCI 2.2 6.2.4: one Latency Timer register per master");
}

// Whether the board has a device: `false` leaves it out of the machine.
inline params::KeySpec fitted(std::string name, std::string doc, std::string source) {
  return params::with_source(
      params::of_type(params::ValueType::Bool, std::move(name), std::move(doc)), std::move(source));
}

}  // namespace latsim::knobs
