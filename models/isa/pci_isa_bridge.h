#pragma once
// PCI-to-ISA bridge (VT82C686B south bridge function 0): claims the legacy I/O
// ports and runs each access as an ISA cycle (~1 us at 8.33 MHz), holding the
// PCI transaction until the ISA cycle is done.
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>
#include "common/params.h"
#include "models/common/address_map.h"
#include "models/common/register_bank.h"
#include "models/common/time.h"

namespace latsim::isa {

// The platform.isa.* knobs (pci_isa_bridge_keys).
struct PciIsaBridgeParams {
  double io_cycle_ns = 1700;          // one ISA I/O cycle through the bridges; fitted to O5
  bool delayed_transactions = false;  // BIOS "PCI Delay Transaction" (PCI 2.1 3.3.3.3)

  sc_time io_cycle() const { return sc_time(io_cycle_ns, SC_NS); }
};
params::Table<PciIsaBridgeParams> pci_isa_bridge_keys();

class PciIsaBridge : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<PciIsaBridge> pci_socket;
  tlm_utils::multi_passthrough_initiator_socket<PciIsaBridge> isa_socket;

  explicit PciIsaBridge(sc_core::sc_module_name name, const PciIsaBridgeParams& p = {});

  void map(uint16_t port, uint16_t count, int socket_index, const std::string& name);
  sc_time io_cycle() const { return io_cycle_; }
  const PciIsaBridgeParams& params() const { return p_; }
  uint64_t cycles() const { return cycles_; }
  uint8_t post_code() const { return uint8_t(post_); }  // last byte written to port 0x80

 private:
  using Reg = Register<PciIsaBridge>;
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  PciIsaBridgeParams p_;
  sc_time io_cycle_;
  AddressMap map_;
  uint64_t cycles_ = 0;
  // The bridge's own ports; the rest go to the ISA devices mapped behind it.
  RegisterBank<PciIsaBridge> regs_{this};
  Reg post_ = Reg(regs_, "POST", {0x80, 1}, RegAccess::RW);  // the classic outb_p delay target
};

}  // namespace latsim::isa
