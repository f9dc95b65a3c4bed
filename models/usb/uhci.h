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
  enum Reg : uint8_t {
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

 private:
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  uint16_t frame_number() const;  // FRNUM: one count per 1 ms frame while running
  void write_command(uint16_t v);
  void reset();

  uint16_t cmd_ = 0, sts_ = 0, intr_ = 0, frnum_ = 0;
  uint32_t flbase_ = 0;
  uint8_t sof_ = 0x40;              // SOFMOD default: 12000 bit times per frame
  sc_core::sc_time running_since_;  // when Run/Stop was last set
  uint64_t status_reads_ = 0;
};

}  // namespace latsim::usb
