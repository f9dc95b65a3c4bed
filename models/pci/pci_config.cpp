#include "models/pci/pci_config.h"

namespace latsim::pci {

PciConfig::PciConfig(const PciIdentity& id) : command_bits_(id.command_bits) {
  vendor_id_.set_reset_value(id.vendor_id);
  device_id_.set_reset_value(id.device_id);
  status_.set_reset_value(id.status);
  revision_id_.set_reset_value(id.revision_id);
  class_code_.set_reset_value(id.class_code);
  interrupt_pin_.set_reset_value(id.interrupt_pin);
  min_gnt_.set_reset_value(id.min_gnt);
  max_lat_.set_reset_value(id.max_lat);
  regs_.reset();
  for (size_t i = 0; i < bar_.size(); ++i) {
    const PciBar& b = id.bars[i];
    // Sizing (PCI 2.2 6.2.5.1): the bits below the size are hardwired, so writing all
    // ones reads back the size; bit 0 tells I/O from memory.
    bar_mask_[i] = b.size ? ~(b.size - 1) & (b.io ? ~0x3u : ~0xfu) : 0;
    bar_[i] = b.size && b.io ? 1u : 0u;
  }
}

void PciConfig::write_bar(uint32_t v, const RegIo& io) {
  const uint32_t lanes = (io.len >= 4 ? ~0u : (1u << (8 * io.len)) - 1) << (8 * io.lane);
  uint32_t& bar = bar_[io.index];
  bar = (((bar & ~lanes) | v) & bar_mask_[io.index]) | (bar & ~bar_mask_[io.index]);
}

}  // namespace latsim::pci
