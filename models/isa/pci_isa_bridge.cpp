#include "models/isa/pci_isa_bridge.h"
#include "common/log.h"
#include "models/pci/stall_class.h"

namespace latsim::isa {

params::Table<PciIsaBridgeParams> pci_isa_bridge_keys() {
  using namespace params;
  using P = PciIsaBridgeParams;
  return {
      bind(with_source(
               number("io_cycle_ns", 100, 10000, "ns",
                      "one 8-bit ISA I/O cycle through the PCI-ISA bridge (inb/outb)"),
               "fitted (O5): mark_offset_tsc -> do_timer 14-15 us, its 7 ISA cycles with the "
               "timer_ack poll; seed 000's outb_p/inb_p steps agree"),
           &P::io_cycle_ns),
      bind(with_source(of_type(ValueType::Bool, "delayed_transactions",
                               "BIOS \"PCI Delay Transaction\": slow ISA cycles are answered with "
                               "Retry and completed in the background (PCI 2.1 delayed "
                               "transactions)"),
                       "assumption: the BIOS option left off"),
           &P::delayed_transactions),
  };
}

PciIsaBridge::PciIsaBridge(sc_core::sc_module_name name, const PciIsaBridgeParams& p)
    : sc_module(name),
      pci_socket("pci_socket"),
      isa_socket("isa_socket"),
      p_(p),
      io_cycle_(p.io_cycle()) {
  pci_socket.register_b_transport(this, &PciIsaBridge::b_transport);
}

void PciIsaBridge::map(uint16_t port, uint16_t count, int socket_index, const std::string& name) {
  map_.add(port, count, socket_index, name);
}

void PciIsaBridge::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const uint64_t port = p.get_address();
  // 8-bit ISA device: one ISA cycle per byte moved.
  delay += io_cycle_ * double(p.get_data_length());
  cycles_ += p.get_data_length();
  LATSIM_TRACE(isa, name(), "{} port {:#x}: {} ISA cycle(s)", p.is_write() ? "out" : "in", port,
               p.get_data_length());
  pci::declare_stall_class(p, pci::StallClass::Isa);  // the PCI cycle waits for the ISA cycle
  if (regs_.decodes_to(uint32_t(port), p.is_write())) return regs_.transport(p, delay);
  auto hit = map_.decode(port);
  if (!hit) {  // nobody claims the port: reads float high, writes are dropped
    if (p.is_read()) std::fill_n(p.get_data_ptr(), p.get_data_length(), 0xff);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  p.set_address(hit->offset);
  isa_socket[hit->range->port]->b_transport(p, delay);
}

}  // namespace latsim::isa
