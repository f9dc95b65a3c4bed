#include "kernel_sim/drivers/usb/uhci_hcd.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
// UHCI Design Guide 1.1, 2.1: I/O registers and bits (uhci-hcd.h names).
constexpr uint16_t USBCMD = 0x00, USBSTS = 0x02, USBINTR = 0x04, USBFRNUM = 0x06,
                   USBFLBASEADD = 0x08;
constexpr uint16_t USBCMD_RS = 0x01, USBCMD_EGSM = 0x08, USBCMD_CF = 0x40, USBCMD_MAXP = 0x80;
constexpr uint16_t USBSTS_HCH = 0x20;
constexpr uint16_t USBINTR_ALL = 0x0f;       // timeout/CRC, resume, IOC, short packet
constexpr uint32_t kFrameList = 0x00230000;  // dma_alloc_coherent'd frame list (assumption)
}  // namespace

UhciHcd::UhciHcd(Kernel& k, uint16_t io_base, unsigned irq) : k_(k), io_base_(io_base), irq_(irq) {}

void UhciHcd::probe() {
  // usb_hcd_pci_probe (2.4: usb-uhci.c alloc_uhci): SA_SHIRQ, interrupts on.
  if (!k_.request_irq(irq_, k_.flavour().uhci_hcd ? "uhci_hcd" : "usb-uhci", IRQF_SHARED,
                      [this] { irq(); }))
    return;  // -EBUSY: the line is someone's who does not share
  CpuOps& cpu = k_.this_cpu();
  cpu.outw(USBINTR_ALL, uint16_t(io_base_ + USBINTR));  // start_hc
  cpu.outw(0, uint16_t(io_base_ + USBFRNUM));
  cpu.outl(kFrameList, uint16_t(io_base_ + USBFLBASEADD));
  cpu.outw(USBCMD_RS | USBCMD_CF | USBCMD_MAXP, uint16_t(io_base_ + USBCMD));
  hcd_state_ = 1;  // USB_STATE_RUNNING
  if (k_.flavour().uhci_hcd) cpu.outw(USBCMD_EGSM, uint16_t(io_base_ + USBCMD));  // suspend_hc
}

void UhciHcd::irq() {
  CpuOps& cpu = k_.this_cpu();
  s_.calls++;
  LATSIM_DEBUG(usb, k_.log_who(), "uhci at {:#x}: shared interrupt", io_base_);
  uint16_t status = 0;
  if (!k_.flavour().uhci_hcd) {
    // usb-uhci.c uhci_interrupt: "if (!status) return;  /* shared interrupt, not mine */"
    k_.fn("uhci_interrupt", "handle_IRQ_event", 30);
    k_.exec(0, k_.line_fills(&io_base_, 1, false));
    status = cpu.inw(uint16_t(io_base_ + USBSTS));
    if (!status) return void(s_.not_mine++);
  } else {
    // usb_hcd_irq: hcd->state (not halted), then hcd->driver->irq.
    k_.fn("usb_hcd_irq", "generic_handle_IRQ_event", 20);
    k_.exec(0, k_.line_fills(&hcd_state_, 1, false));
    // uhci_irq: HCHalted is persistent, so a suspended controller reads 0x0020.
    k_.fn("uhci_irq", "usb_hcd_irq", 20);
    k_.exec(0, k_.line_fills(&io_base_, 1, false));
    status = cpu.inw(uint16_t(io_base_ + USBSTS));
    if (!(status & ~USBSTS_HCH)) return void(s_.not_mine++);
  }
  s_.unexpected++;
  cpu.outw(status, uint16_t(io_base_ + USBSTS));  // write the cause back to clear it
}

}  // namespace latsim::kernel
