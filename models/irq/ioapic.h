#pragma once
// Intel 82093AA I/O APIC: 24 redirection entries reached through an indirect
// index (IOREGSEL) / data (IOWIN) window, delivering messages on the APIC bus.
//
// Input pins carry the logical request (true = device asserts its interrupt);
// board inverters are implied, so the polarity bit (13) is stored but not applied.
// Delivery on the APIC bus is instantaneous: Delivery Status (bit 12) reads 0.
#include <tlm_utils/simple_target_socket.h>
#include <array>
#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include "common/params.h"
#include "models/common/register_bank.h"
#include "models/common/time.h"
#include "models/irq/irq_line.h"

namespace latsim::irq {

// The board's IO-APIC knobs: whether it has one (platform.io_apic, ioapic_fitted_keys) and
// how its window is reached (platform.ioapic.*, ioapic_keys).
struct IoApicParams {
  bool fitted = true;  // false: IRQs through the 8259A pair only, PIT tick (2.4 UP)
  // pci (a PCI-speed target) or xbus (82093AA-style 8-bit X-bus behind the PCI-ISA
  // bridge: 4 ISA cycles per dword).
  std::string bus = "xbus";
};
params::Table<IoApicParams> ioapic_fitted_keys();
params::Table<IoApicParams> ioapic_keys();

class IoApic : public sc_core::sc_module, public IrqSink, public EoiListener {
 public:
  static constexpr unsigned kEntries = 24;
  // Memory-mapped window (82093AA 3.1).
  static constexpr unsigned IOREGSEL = 0x00;
  static constexpr unsigned IOWIN = 0x10;
  // Indirect registers (82093AA 3.2).
  enum Index : unsigned { IOAPICID = 0x00, IOAPICVER = 0x01, IOAPICARB = 0x02, IOREDTBL = 0x10 };
  // Redirection entry low dword fields (82093AA 3.2.4).
  static constexpr uint32_t kVector = 0xFF;
  static constexpr uint32_t kDeliveryMode = 0x700;
  static constexpr uint32_t kDestModeLogical = 1u << 11;
  static constexpr uint32_t kDeliveryStatus = 1u << 12;
  static constexpr uint32_t kPolarityLow = 1u << 13;
  static constexpr uint32_t kRemoteIrr = 1u << 14;
  static constexpr uint32_t kLevelTrigger = 1u << 15;
  static constexpr uint32_t kMask = 1u << 16;

  tlm_utils::simple_target_socket<IoApic> socket;
  sc_time access_latency = SC_ZERO_TIME;
  // X-bus attachment (82093AA 3.0: CS# from the PCI-ISA bridge, D/I# on SA4, an 8-bit
  // data bus): a dword window access is run as kXbusBytes byte cycles of this length.
  // Zero: the window answers at PCI speed (an integrated APIC on the south bridge's PCI side).
  static constexpr unsigned kXbusBytes = 4;
  sc_time xbus_cycle = SC_ZERO_TIME;

  // `id`: the APIC ID the BIOS leaves in IOAPICID (MP table value, 2 on dual-P6 boards).
  explicit IoApic(sc_core::sc_module_name name, unsigned id = 2);
  IoApic(const IoApic&) = delete;
  IoApic& operator=(const IoApic&) = delete;

  void connect(ApicBus& bus) { bus_ = &bus; }

  // 32-bit window access: offset IOREGSEL (0x00) or IOWIN (0x10).
  uint32_t read(unsigned offset) { return regs_.read(offset, 4); }
  void write(unsigned offset, uint32_t v) { regs_.write(offset, 4, v); }

  void irq_set(unsigned pin, bool level) override;  // INTIN0-23
  void eoi(unsigned vector) override;               // EOI message from a local APIC

  uint64_t entry(unsigned n) const { return redtbl_.at(n); }
  uint64_t deliveries(unsigned n) const { return deliveries_.at(n); }

 private:
  using Reg = Register<IoApic>;
  // The indirect registers sit one dword apart in their bank: index i at offset 4 * i.
  static constexpr uint32_t at_index(unsigned i) { return 4 * i; }

  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  uint32_t read_window(const RegIo& io);
  void write_window(uint32_t v, const RegIo& io);
  uint32_t read_id(const RegIo&) { return id_; }
  void write_id(uint32_t v, const RegIo&) { id_ = v & 0x0F000000; }  // bits 27:24
  uint32_t read_arb(const RegIo&) { return id_; }  // arbitration ID is loaded from the APIC ID
  uint32_t read_redtbl(const RegIo& io);
  void write_redtbl(uint32_t v, const RegIo& io);
  void try_level(unsigned pin);  // level input: (re)deliver if asserted and Remote IRR clear
  void send(unsigned pin);

  RegisterBank<IoApic> regs_{this};
  Reg regsel_ = Reg(regs_, "IOREGSEL", {IOREGSEL, 4}, RegRights{0xFF, 0});  // bits 7:0: index
  Reg iowin_ = Reg(regs_, "IOWIN", {IOWIN, 4}, RegAccess::RW, 0, &IoApic::read_window,
                   &IoApic::write_window);
  RegisterBank<IoApic> indirect_{this};
  Reg id_reg_ = Reg(indirect_, "IOAPICID", {at_index(IOAPICID), 4}, RegAccess::RW, 0,
                    &IoApic::read_id, &IoApic::write_id);
  Reg ver_ = Reg(indirect_, "IOAPICVER", {at_index(IOAPICVER), 4}, RegAccess::RO,
                 ((kEntries - 1) << 16) | 0x11);  // max redirection entry, version
  Reg arb_ =
      Reg(indirect_, "IOAPICARB", {at_index(IOAPICARB), 4}, RegAccess::RO, 0, &IoApic::read_arb);
  // Each entry is two registers, low dword first.
  Reg redtbl_regs_ = Reg(indirect_, "IOREDTBL", {at_index(IOREDTBL), 4, 2 * kEntries, 4},
                         RegAccess::RW, 0, &IoApic::read_redtbl, &IoApic::write_redtbl);
  uint32_t id_;  // IOAPICID bits 24-27
  std::array<uint64_t, kEntries> redtbl_{};
  std::array<bool, kEntries> pins_{};
  std::array<uint64_t, kEntries> deliveries_{};
  ApicBus* bus_ = nullptr;
};

}  // namespace latsim::irq
