#pragma once
// A UHCI USB host controller as a PCI function (the VT82C686B has two, functions 2
// and 3): the 32-byte I/O register block of the UHCI Design Guide 1.1, section 2.1
// (USBCMD, USBSTS, USBINTR, FRNUM, FRBASEADD, SOFMOD, PORTSC1/2). Nothing is plugged
// into its two ports, so no transfer completes, no port changes and no resume is
// signalled: USBSTS never sets an interrupt bit and the INTx# pin stays idle. Not
// modelled: the frame-list walk a running controller does by bus-master reads every
// millisecond (a few dwords), the schedule itself.
#include <tlm_utils/simple_target_socket.h>
#include <cstdint>
#include <systemc>
#include <tlm>
#include "common/params.h"
#include "models/pci/pci_config.h"

namespace latsim::usb {

// The platform.usb.* knobs (uhci_keys): the south bridge's UHCI controllers, nothing
// plugged in, and where their INTx# is steered: their handlers run on every interrupt
// of a line they share.
struct UhciParams {
  int uhci = 2;  // controllers (the 686B has two: functions 2 and 3)
  int irq = 10;  // ISA IRQ / IO-APIC pin
};
params::Table<UhciParams> uhci_keys();

class Uhci : public sc_core::sc_module {
 public:
  enum Offset : uint8_t {
    USBCMD = 0x00,
    USBSTS = 0x02,
    USBINTR = 0x04,
    USBFRNUM = 0x06,
    USBFLBASEADD = 0x08,
    USBSOF = 0x0c,
    USBPORTSC1 = 0x10,
    USBPORTSC2 = 0x12,
  };
  enum Command : uint16_t {
    USBCMD_RS = 1u << 0,       // Run/Stop
    USBCMD_HCRESET = 1u << 1,  // host controller reset
    USBCMD_GRESET = 1u << 2,   // global reset
    USBCMD_EGSM = 1u << 3,     // enter global suspend mode
    USBCMD_FGR = 1u << 4,      // force global resume
    USBCMD_CF = 1u << 6,       // configure flag
    USBCMD_MAXP = 1u << 7,     // 64-byte full-speed reclamation packets
  };
  enum Status : uint16_t {
    USBSTS_USBINT = 1u << 0,
    USBSTS_ERROR = 1u << 1,
    USBSTS_RD = 1u << 2,
    USBSTS_HSE = 1u << 3,
    USBSTS_HCPE = 1u << 4,
    USBSTS_HCH = 1u << 5,  // HC halted: read-only, follows Run/Stop (as Linux finds it)
  };
  static constexpr uint16_t kPortReserved = 1u << 7;  // PORTSC bit 7 always reads 1
  static constexpr uint64_t kIoSize = 0x20;

  tlm_utils::simple_target_socket<Uhci> socket;

  explicit Uhci(sc_core::sc_module_name name);

  uint32_t read(uint64_t offset, unsigned len);
  void write(uint64_t offset, unsigned len, uint32_t v);

  uint64_t status_reads() const { return status_reads_; }
  // Its bus-master reads are not modelled, so nothing holds it to its Latency Timer.
  pci::PciConfig& pci_config() { return pci_config_; }

 private:
  using Reg = Register<Uhci>;
  static pci::PciIdentity pci_identity();

  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  uint16_t frame_number() const;  // FRNUM: one count per 1 ms frame while running
  uint32_t read_status(const RegIo&);
  uint32_t read_frnum(const RegIo&) { return frame_number(); }
  void write_frnum(uint32_t v, const RegIo&);
  void write_flbase(uint32_t v, const RegIo& io);
  void write_command(uint32_t v, const RegIo&);
  void reset();

  // Register defaults (UHCI 1.1, 2.1): halted, frame 0, SOFMOD 64, ports empty.
  RegisterBank<Uhci> regs_{this};
  Reg cmd_ = Reg(regs_, "USBCMD", {USBCMD, 2}, RegAccess::RW, 0, nullptr, &Uhci::write_command);
  // Status bits 4:0 are write-1-to-clear; HCHalted is read-only and follows Run/Stop.
  Reg sts_ = Reg(regs_, "USBSTS", {USBSTS, 2}, RegRights{0, 0x1f}, 0, &Uhci::read_status);
  Reg intr_ = Reg(regs_, "USBINTR", {USBINTR, 2}, RegRights{0x0f, 0});
  Reg frnum_ = Reg(regs_, "FRNUM", {USBFRNUM, 2}, RegAccess::RW, 0, &Uhci::read_frnum,
                   &Uhci::write_frnum);  // the count when Run/Stop was last cleared
  Reg flbase_ = Reg(regs_, "FRBASEADD", {USBFLBASEADD, 4}, RegRights{0xfffff000u, 0}, 0, nullptr,
                    &Uhci::write_flbase);
  Reg sof_ = Reg(regs_, "SOFMOD", {USBSOF, 1}, RegRights{0x7f, 0}, 0x40);  // 12000 bit times
  // No device: CCS, PED and the change bits all 0, reserved bit 7 reads 1.
  Reg portsc1_ = Reg(regs_, "PORTSC1", {USBPORTSC1, 2}, RegAccess::RO, kPortReserved);
  Reg portsc2_ = Reg(regs_, "PORTSC2", {USBPORTSC2, 2}, RegAccess::RO, kPortReserved);
  pci::PciConfig pci_config_{pci_identity()};
  sc_core::sc_time running_since_;  // when Run/Stop was last set
  uint64_t status_reads_ = 0;
};

}  // namespace latsim::usb
