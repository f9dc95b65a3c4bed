// drivers/scsi/aic7xxx (2.4, aic7xxx_linux.c and aic7xxx.c): attach, queuecommand
// building a hardware SCB and posting its number in the QINFIFO, and the interrupt
// handler draining the QOUTFIFO and handing each command to scsi_done.
#include <cstring>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
// I/O BAR offsets (aic7xxx.reg), as the AIC-7880 model decodes them.
constexpr uint16_t HSCB_ADDR = 0x3c, SHARED_DATA_ADDR = 0x40, KERNEL_QINPOS = 0x4a;
constexpr uint16_t HCNTRL = 0x87, INTSTAT = 0x91, CLRINT = 0x92;
constexpr uint8_t INTEN = 0x02, CMDCMPLT = 0x02;
constexpr uint8_t TAG_ENB = 0x20, DISCENB = 0x40;
constexpr uint8_t SCB_LIST_NULL = 0xff;
constexpr uint8_t READ_10 = 0x28, WRITE_10 = 0x2a;
constexpr uint32_t kScbBytes = 64;  // struct hardware_scb
}  // namespace

params::Table<Aic7xxxOptions> aic7xxx_keys() {
  using namespace params;
  return {
      bind<Aic7xxxOptions>(
          with_source(integer("tag_depth", 1, 253, "commands",
                              "tagged commands the mid-layer queues to the disk at once "
                              "(aic7xxx=tag_info; 1: one command at a time)"),
                      "drivers/scsi/aic7xxx Config.help: CONFIG_AIC7XXX_CMDS_PER_DEVICE "
                      "defaults to 32"),
          &Aic7xxxOptions::tag_depth),
  };
}

// ahc_linux_detect / ahc_pci_config: the SCB array and the QOUTFIFO/QINFIFO in host
// memory, the sequencer told where they are, interrupts on; the SCSI bottom half.
void BlockLayer::init_scsi() {
  blk_dev_init();
  const uint16_t io = k_.params().scsi_io;
  uint8_t empty[256];
  std::memset(empty, SCB_LIST_NULL, sizeof empty);
  k_.this_cpu().mem_write(kSharedData, empty, sizeof empty);  // QOUTFIFO
  k_.outl(uint32_t(kScbArray), io + HSCB_ADDR);
  k_.outl(uint32_t(kSharedData), io + SHARED_DATA_ADDR);
  k_.open_softirq(HI_SOFTIRQ, [this] { scsi_bottom_half_handler(); });
  k_.request_irq(k_.params().scsi_irq, "aic7xxx", IRQF_SHARED, [this] { ahc_linux_isr(); });
  k_.outb(INTEN, io + HCNTRL);
}

// ahc_linux_queue, called with io_request_lock held: the lock is traded for the
// adapter's (ahc_midlayer_entrypoint_lock), the SCB built and queued (ahc_queue_scb).
void BlockLayer::ahc_linux_queue(uint8_t tag) {
  k_.fn("ahc_linux_queue", "scsi_dispatch_cmd", 60, 1);
  k_.spin_unlock(ide_lock_, {"ahc_linux_queue", "unlock"});
  k_.spin_lock(ahc_lock_, "ahc_linux_queue");
  const Request& rq = scsi_cmds_.at(tag);
  k_.fn("ahc_linux_run_device_queue", "ahc_linux_queue", 150, 2);  // ahc_get_scb, the hscb
  uint8_t hscb[kScbBytes] = {};
  hscb[0] = rq.write ? WRITE_10 : READ_10;
  for (int i = 0; i < 4; ++i) hscb[2 + i] = uint8_t(rq.sector >> (24 - 8 * i));
  hscb[7] = uint8_t(rq.nr_sectors >> 8);
  hscb[8] = uint8_t(rq.nr_sectors);
  const uint32_t sgptr = uint32_t(kSgLists + uint64_t(tag) * 2048);
  std::memcpy(hscb + 20, &sgptr, 4);
  hscb[24] = TAG_ENB | DISCENB;  // control: a simple-queue tag, disconnection allowed
  hscb[27] = tag;
  k_.this_cpu().mem_write(kScbArray + uint64_t(tag) * kScbBytes, hscb, sizeof hscb);
  k_.fn("ahc_queue_scb", "ahc_linux_run_device_queue", 40, 1);
  k_.this_cpu().mem_write(kSharedData + 256 + qinfifonext_, &tag, 1);
  ++qinfifonext_;
  k_.outb(qinfifonext_, k_.params().scsi_io + KERNEL_QINPOS);
  k_.spin_unlock(ahc_lock_, {"ahc_linux_queue", "unlock"});
  k_.spin_lock(ide_lock_, "ahc_linux_queue");
}

// ahc_linux_isr: ahc_intr under the adapter's lock; the finished commands go to
// scsi_done with io_request_lock held (ahc_linux_run_complete_queue, ahc_done_lock).
void BlockLayer::ahc_linux_isr() {
  k_.fn("ahc_linux_isr", "handle_IRQ_event", 40, 1);
  const uint16_t io = k_.params().scsi_io;
  const bool flags = k_.spin_lock_irqsave(ahc_lock_, "ahc_linux_isr");
  k_.fn("ahc_intr", "ahc_linux_isr", 40);
  std::vector<uint8_t> done;
  if (k_.inb(io + INTSTAT) & CMDCMPLT) {
    k_.outb(CMDCMPLT, io + CLRINT);
    k_.fn("ahc_run_qoutfifo", "ahc_intr", 40, 1);
    for (int i = 0; i < 256; ++i) {
      uint8_t tag = SCB_LIST_NULL;
      const uint64_t slot = kSharedData + qoutfifonext_;
      k_.this_cpu().mem_read(slot, &tag, 1);
      if (tag == SCB_LIST_NULL || !scsi_cmds_.count(tag)) break;
      k_.this_cpu().mem_write(slot, &SCB_LIST_NULL, 1);
      ++qoutfifonext_;
      k_.fn("ahc_done", "ahc_run_qoutfifo", 80, 1);
      done.push_back(tag);
    }
  }
  if (!done.empty()) {
    k_.fn("ahc_linux_run_complete_queue", "ahc_linux_isr", 40, 1);
    const bool f = k_.spin_lock_irqsave(ide_lock_, "ahc_linux_run_complete_queue");
    for (uint8_t tag : done) scsi_done(tag);
    k_.spin_unlock_irqrestore(ide_lock_, f, {"ahc_linux_run_complete_queue", "unlock"});
  }
  k_.spin_unlock_irqrestore(ahc_lock_, flags, {"ahc_linux_isr", "unlock"});
}

}  // namespace latsim::kernel
