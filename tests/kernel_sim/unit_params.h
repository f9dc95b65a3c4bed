#pragma once
// The kernel the unit tests were written against: the reference machine's kernel with
// the mechanisms added to it later switched off (noop elevator, inline plugging, no ALSA
// write timer, no cache_reap, edge PCI lines delivered to CPU0). A test turns on the one
// it studies.
#include "kernel_sim/kernel_params.h"

namespace latsim::test {

inline kernel::KernelParams unit_params() {
  kernel::KernelParams p;
  p.block.elevator = "noop";
  p.block.plugging = "inline";
  p.pcm_write_timeout = false;
  p.slab_reap = false;
  p.irq_lowest_priority = false;
  p.pci_irq_level = false;
  return p;
}

}  // namespace latsim::test
