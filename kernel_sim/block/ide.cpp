// drivers/ide/ide-io.c, ide-dma.c, ide-disk.c: start a request with bus-master
// DMA (PRD table, task file, BM start) and complete it from IRQ 14; with hdparm
// -d0 the PIO path of ide-taskfile.c, where the CPU reads every sector through
// the data port (task_in_intr -> ide_pio_sector -> ide_insl/ide_insw).
#include <algorithm>
#include <string>
#include <vector>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
constexpr uint16_t IDE_DATA = 0x1f0, IDE_STATUS = 0x1f7, IDE_CONTROL = 0x3f6;
constexpr uint16_t BM_BASE = 0xd000;  // BAR4 of the IDE function, as the BIOS assigned it
constexpr uint8_t WIN_READDMA = 0xc8, WIN_WRITEDMA = 0xca;
constexpr uint8_t WIN_READ = 0x20;
constexpr uint8_t DRQ_STAT = 0x08;
constexpr uint32_t SECTOR_WORDS = 128;  // dwords per 512-byte sector
constexpr unsigned IDE_IRQ = 14;
}  // namespace

params::Table<Hdparm> hdparm_keys() {
  using namespace params;
  return {
      bind<Hdparm>(of_type(ValueType::OnOff, "dma", "hdparm -d: bus-master DMA for hda"),
                   &Hdparm::dma),
      bind<Hdparm>(of_type(ValueType::OnOff, "unmaskirq",
                           "hdparm -u: ide_intr re-enables interrupts during the handler"),
                   &Hdparm::unmaskirq),
      bind<Hdparm>(of_type(ValueType::OnOff, "io_32bit",
                           "hdparm -c1: PIO transfers move dwords (insl) instead of words (insw)"),
                   &Hdparm::io_32bit),
  };
}

void BlockLayer::blk_dev_init() {
  // create_workqueue("kblockd"), a worker_thread per CPU. Its work here is the
  // anticipatory scheduler's and the unplug timer's, so without both it is not created.
  const bool kblockd = k_.params().block.elevator == "anticipatory" || plugging_timer();
  if (kblockd) kblockd_ = std::make_unique<Workqueue>(k_, "kblockd");
}

void BlockLayer::init_ide() {
  blk_dev_init();
  k_.outb(0x00, IDE_CONTROL);  // nIEN clear: the drive may interrupt
  // ide-probe.c init_irq on a PCI chipset without CONFIG_IDEPCI_SHARE_IRQ.
  k_.request_irq(IDE_IRQ, "ide0", IRQF_SHARED | IRQF_DISABLED, [this] { ide_intr(); });
}

void BlockLayer::do_request(const char* caller, bool via_request_fn) {
  if (k_.params().scsi_disk) return scsi_request_fn(caller);
  ide_do_request(via_request_fn ? "do_ide_request" : caller);
}

// Called with ide_lock held and interrupts off.
void BlockLayer::ide_do_request(const char* parent) {
  k_.fn("ide_do_request", parent, 80, 1);
  if (busy_ || queue_.empty() || plugged_) return;  // choose_drive skips a plugged queue
  const int next = elv_next_request();
  if (next < 0) return;  // anticipating the last reader's next read
  busy_ = true;
  active_ = std::move(queue_[size_t(next)]);
  queue_.erase(queue_.begin() + next);
  active_blame_ = {active_blame_.seq + 1, active_.sector, active_.nr_sectors,
                   active_.write,         active_.pid,    active_.comm};
  stats_.max_request_sectors = std::max<uint64_t>(stats_.max_request_sectors, active_.nr_sectors);
  LATSIM_DEBUG(block, k_.log_who(), "dispatch {} sector {} +{} of {}-{}, {} queued",
               active_.write ? "write" : "read", active_.sector, active_.nr_sectors, active_.comm,
               active_.pid, queue_.size());
  // Keep our own IRQ off while the lock is dropped and interrupts are on.
  k_.disable_irq_nosync(IDE_IRQ, "ide_do_request");
  k_.spin_unlock(ide_lock_, {"ide_do_request", "unlock"});
  k_.local_irq_enable({"ide_do_request", "unlock"});
  start_request(active_);
  k_.spin_lock_irq(ide_lock_, "ide_do_request");
  k_.enable_irq(IDE_IRQ, "ide_do_request");
}

// blk_rq_map_sg: physically contiguous pages form one segment (of at most 64 KiB).
std::vector<std::pair<uint64_t, uint32_t>> BlockLayer::blk_rq_map_sg(const Request& rq) const {
  std::vector<std::pair<uint64_t, uint32_t>> segs;
  for (PageRef page : rq.pages) {
    const uint64_t a = rq.write ? files_[page.file].wframes[page.index] : frame_of(page);
    if (!segs.empty() && segs.back().first + segs.back().second == a &&
        segs.back().second < 0x10000)
      segs.back().second += 4096;
    else
      segs.push_back({a, 4096});
  }
  return segs;
}

void BlockLayer::start_request(const Request& rq) {
  k_.fn("start_request", "ide_do_request", 60, 1);
  k_.fn("ide_do_rw_disk", "start_request", 100, 1);
  if (!k_.params().block.hdparm.dma) return start_pio(rq);
  const std::vector<std::pair<uint64_t, uint32_t>> segs = blk_rq_map_sg(rq);
  k_.fn("ide_build_sglist", "__ide_dma_setup", 40 + 20 * segs.size(), 1);
  // ide_build_dmatable: 8-byte PRD entries, never crossing 64 KiB, EOT on the last.
  std::vector<uint32_t> table;
  for (auto seg : segs) {
    auto [addr, len] = seg;
    while (len) {
      const uint32_t room = uint32_t(0x10000 - (addr & 0xffff));
      const uint32_t n = std::min(len, room);
      table.push_back(uint32_t(addr));
      table.push_back(n & 0xffff);
      addr += n;
      len -= n;
    }
  }
  table.back() |= 0x80000000u;
  k_.fn("ide_build_dmatable", "__ide_dma_setup", 40 + 30 * table.size() / 2, 1 + table.size() / 16);
  k_.this_cpu().mem_write(kPrdTable, table.data(), table.size() * 4);
  k_.outl(uint32_t(kPrdTable), BM_BASE + 4);
  k_.outb(rq.write ? 0x00 : 0x08, BM_BASE);  // direction: 0x08 = the bus master writes memory
  k_.outb(uint8_t(k_.inb(BM_BASE + 2) | 0x06), BM_BASE + 2);  // clear INTR and ERROR
  // Task file: LBA28 READ DMA.
  const uint64_t lba = rq.sector;
  k_.fn("ide_execute_command", "ide_do_rw_disk", 60);
  k_.outb(uint8_t(rq.nr_sectors & 0xff), IDE_DATA + 2);
  k_.outb(uint8_t(lba), IDE_DATA + 3);
  k_.outb(uint8_t(lba >> 8), IDE_DATA + 4);
  k_.outb(uint8_t(lba >> 16), IDE_DATA + 5);
  k_.outb(uint8_t(0xe0 | ((lba >> 24) & 0x0f)), IDE_DATA + 6);
  k_.outb(rq.write ? WIN_WRITEDMA : WIN_READDMA, IDE_STATUS);
  k_.fn("__ide_dma_begin", "ide_do_rw_disk", 30);
  k_.outb(rq.write ? 0x01 : 0x09, BM_BASE);  // start
}

// __ide_do_rw_disk without DMA: task file, WIN_READ, handler task_in_intr.
void BlockLayer::start_pio(const Request& rq) {
  pio_left_ = rq.nr_sectors;
  const uint64_t lba = rq.sector;
  k_.fn("ide_execute_command", "ide_do_rw_disk", 60);
  k_.outb(uint8_t(rq.nr_sectors & 0xff), IDE_DATA + 2);
  k_.outb(uint8_t(lba), IDE_DATA + 3);
  k_.outb(uint8_t(lba >> 8), IDE_DATA + 4);
  k_.outb(uint8_t(lba >> 16), IDE_DATA + 5);
  k_.outb(uint8_t(0xe0 | ((lba >> 24) & 0x0f)), IDE_DATA + 6);
  k_.outb(WIN_READ, IDE_STATUS);
}

// ide_intr with a PIO handler: ide_lock is dropped around the handler, which runs
// with interrupts off unless unmaskirq (hdparm -u1) lets ide_intr enable them.
void BlockLayer::ide_pio_intr(bool flags) {
  k_.spin_unlock(ide_lock_, {"ide_intr", "unlock"});
  if (k_.params().block.hdparm.unmaskirq) k_.local_irq_enable({"ide_intr", "unlock"});
  bool done = false;
  if (busy_) {
    k_.fn("task_in_intr", "ide_intr", 60, 1);
    const uint8_t stat = k_.inb(IDE_STATUS);  // reading Status acknowledges INTRQ
    if (stat & DRQ_STAT) {
      k_.fn("ide_pio_datablock", "task_in_intr", 40);
      k_.fn("ide_pio_sector", "ide_pio_datablock", 60, 1);  // kmap the bio page
      k_.fn("ata_input_data", "taskfile_input_data", 30);
      const bool dw = k_.params().block.hdparm.io_32bit;
      k_.fn(dw ? "ide_insl" : "ide_insw", "ata_input_data", 20);
      k_.rep_ins(IDE_DATA, dw ? 4 : 2, dw ? SECTOR_WORDS : 2 * SECTOR_WORDS);
      pio_left_--;
    }
    if (pio_left_ == 0) {  // the last DRQ block: task_end_request
      k_.fn("task_end_request", "task_in_intr", 40);
      ide_end_request(active_);
      busy_ = false;
      stats_.ios_completed++;
      done = true;
    }
  }
  k_.spin_lock_irq(ide_lock_, "ide_intr");
  if (done) ide_do_request("ide_intr");
  k_.spin_unlock_irqrestore(ide_lock_, flags, {"ide_intr", "unlock"});
}

void BlockLayer::ide_intr() {
  k_.fn("ide_intr", "generic_handle_IRQ_event", 80, 1);
  const bool flags = k_.spin_lock_irqsave(ide_lock_, "ide_intr");
  if (!k_.params().block.hdparm.dma) return ide_pio_intr(flags);
  if (k_.params().block.hdparm.unmaskirq) k_.local_irq_enable({"ide_intr", "lock"});  // hdparm -u1
  if (!busy_) {
    k_.spin_unlock_irqrestore(ide_lock_, flags, {"ide_intr", "unlock"});
    return;
  }
  k_.fn("ide_dma_intr", "ide_intr", 40);
  k_.fn("__ide_dma_end", "ide_dma_intr", 40);
  const uint8_t dma_stat = k_.inb(BM_BASE + 2);
  k_.outb(0x08, BM_BASE);  // stop the engine
  k_.outb(uint8_t(dma_stat | 0x06), BM_BASE + 2);
  (void)k_.inb(IDE_STATUS);  // reading Status acknowledges INTRQ
  LATSIM_DEBUG(block, k_.log_who(), "complete {} sector {} +{}, DMA status {:#04x}",
               active_.write ? "write" : "read", active_.sector, active_.nr_sectors, dma_stat);
  ide_end_request(active_);
  busy_ = false;
  stats_.ios_completed++;
  request_freed();
  ide_do_request("ide_intr");
  k_.spin_unlock_irqrestore(ide_lock_, flags, {"ide_intr", "unlock"});
}

void BlockLayer::ide_end_request(const Request& rq) {
  k_.fn("ide_end_request", "ide_dma_intr", 40);
  end_that_request_first(rq, "ide_end_request");
  k_.fn("end_that_request_last", "ide_end_request", 40, 1);
  as_completed_request(rq);
}

void BlockLayer::request_freed() {
  if (congestion_waiters_.empty()) return;  // wake blk_congestion_wait
  auto waiters = std::move(congestion_waiters_);
  congestion_waiters_.clear();
  for (Task* t : waiters) k_.try_to_wake_up(t, "__wake_up_common");
}

// The bio pages of a finished request: written back, or up to date and unlocked.
void BlockLayer::end_that_request_first(const Request& rq, const char* parent) {
  k_.fn("end_that_request_first", parent, 60, 1);
  for (PageRef page : rq.pages) {
    if (rq.write) {
      end_page_writeback(page);
      continue;
    }
    k_.fn("mpage_end_io_read", "bio_endio", 60, 2);  // SetPageUptodate + unlock_page
    stats_.pages_from_disk++;
    unlock_page(page);
  }
}

}  // namespace latsim::kernel
