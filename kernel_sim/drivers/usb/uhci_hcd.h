#pragma once
// drivers/usb/host/uhci-hcd.c (2.6.9) with its core's usb_hcd_irq (drivers/usb/core/
// hcd.c), and 2.4's drivers/usb/usb-uhci.c: one UHCI controller with nothing plugged
// in. Its only work here is on the interrupt line it shares (SA_SHIRQ): on every
// interrupt of that line its handler reads USBSTS, finds no cause of its own and
// returns IRQ_NONE, one port read through the PCI bus per controller.
#include <cstdint>

namespace latsim::kernel {

class Kernel;

struct UhciStats {
  uint64_t calls = 0;       // handler runs (every interrupt of the shared line)
  uint64_t not_mine = 0;    // returned at the USBSTS check
  uint64_t unexpected = 0;  // USBSTS showed a cause (none with nothing plugged in)
};

class UhciHcd {
 public:
  UhciHcd(Kernel& k, uint16_t io_base, unsigned irq);
  // usb_hcd_pci_probe: request_irq(irq, SA_SHIRQ, "uhci_hcd"), start_hc; then, on 2.6,
  // the controller as suspend_hc leaves it once its two one-second graces have passed
  // with no port connected (global suspend: halted). 2.4's usb-uhci keeps it running.
  void probe();
  const UhciStats& stats() const { return s_; }

 private:
  void irq();  // usb_hcd_irq -> uhci_irq (2.6) / uhci_interrupt (2.4)

  Kernel& k_;
  uint16_t io_base_;  // uhci->io_addr, in its own line of struct uhci_hcd
  unsigned irq_;
  int hcd_state_ = 0;  // hcd->state, in the usb_hcd the struct starts with
  UhciStats s_;
};

}  // namespace latsim::kernel
