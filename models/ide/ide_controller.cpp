#include "models/ide/ide_controller.h"
#include <algorithm>
#include <cstring>

namespace latsim::ide {

double udma_mb_s(int mode) {
  static const double rates[] = {16.7, 25.0, 33.3, 44.4, 66.7, 100.0};
  return rates[std::clamp(mode, 0, 5)];
}

IdeController::IdeController(sc_core::sc_module_name name, const IdeControllerParams& p,
                             IdeDisk& disk, chipset::Dram& dram, pci::PciBus& pci)
    : sc_module(name), socket("socket"), p_(p), disk_(disk), dram_(dram), pci_(pci) {
  socket.register_b_transport(this, &IdeController::b_transport);
  // An entry announced but not started when a held transaction took the bus starts
  // when the bus is free again: move the end-of-entry event with it.
  master_ = pci_.add_master(
      std::string(basename()), [this](const pci::BurstTrain& before, const pci::BurstTrain& after) {
        const sc_time now = sc_core::sc_time_stamp();
        const uint32_t base = prd_ptr_ + uint32_t(dma_index_ - 1) * 8;
        const bool last = PrdEntry::decode(dram_.read32(base), dram_.read32(base + 4)).eot ||
                          dma_off_ >= uint64_t(plan_.sectors) * 512 || dma_index_ >= kMaxPrdEntries;
        sc_core::sc_event& ev = last ? done_ev_ : step_ev_;
        ev.cancel();
        ev.notify(after.end - now);
        if (last) stats_.busy += after.end - before.end;
      });
  SC_HAS_PROCESS(IdeController);
  SC_METHOD(dma_step);
  sensitive << step_ev_;
  dont_initialize();
  SC_METHOD(complete);
  sensitive << done_ev_;
  dont_initialize();
}

void IdeController::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
  const uint64_t off = p.get_address();
  uint8_t* d = p.get_data_ptr();
  if (p.get_data_length() == 4) {
    uint32_t v;
    if (p.is_write())
      std::memcpy(&v, d, 4), write32(off, v);
    else
      v = read32(off), std::memcpy(d, &v, 4);
  } else {
    if (p.is_write())
      write(off, *d);
    else
      *d = read(off);
  }
  p.set_response_status(tlm::TLM_OK_RESPONSE);
}

uint8_t IdeController::read(uint64_t off) {
  switch (off) {
    case kTaskFile + 2:
      return count_;
    case kTaskFile + 3:
    case kTaskFile + 4:
    case kTaskFile + 5:
      return lba_[off - kTaskFile - 3];
    case kTaskFile + 6:
      return device_;
    case kTaskFile + 7:  // ATA: reading Status acknowledges INTRQ
      if (irq_pending_) irq_pending_ = false, intrq.set(false);
      return status_;
    case kControl:
      return status_;  // Alternate Status: no side effect
    case kBusMaster + 0:
      return bm_cmd_;
    case kBusMaster + 2:
      return bm_status_;
    default:
      return 0xff;
  }
}

void IdeController::write(uint64_t off, uint8_t v) {
  switch (off) {
    case kTaskFile + 1:
      features_ = v;
      break;
    case kTaskFile + 2:
      count_ = v;
      break;
    case kTaskFile + 3:
    case kTaskFile + 4:
    case kTaskFile + 5:
      lba_[off - kTaskFile - 3] = v;
      break;
    case kTaskFile + 6:
      device_ = v;
      break;
    case kTaskFile + 7:
      if (v == kReadDma || v == kWriteDma) {
        const uint64_t lba = lba_[0] | (uint64_t(lba_[1]) << 8) | (uint64_t(lba_[2]) << 16) |
                             (uint64_t(device_ & 0x0f) << 24);
        command_time_ = sc_core::sc_time_stamp();
        if (v == kReadDma) {
          plan_ = disk_.read(lba, count_ ? count_ : 256, command_time_);
        } else {  // WRITE DMA: the drive's buffer takes the data at the UDMA rate (a
                  // write cache with room; the disk model's write timing is not here)
          plan_ = ide::ReadPlan{lba, count_ ? count_ : 256u, command_time_, command_time_,
                                SC_ZERO_TIME, false};
        }
        status_ = BSY | DRDY;
        command_pending_ = true;
        stats_.commands++;
        if (bm_cmd_ & START) start_dma();
      }
      break;
    case kControl:  // Device Control: nIEN masks INTRQ
      devctl_ = v;
      if (v & 0x02) intrq.set(false);
      break;
    case kBusMaster + 0: {
      const bool starting = (v & START) && !(bm_cmd_ & START);
      bm_cmd_ = v;
      if (starting) {
        bm_status_ |= ACTIVE;
        if (command_pending_) start_dma();
      }
      break;
    }
    case kBusMaster + 2:  // Error and Interrupt bits are write-1-to-clear
      bm_status_ = uint8_t((bm_status_ & ~(v & (ERROR | INTERRUPT)) & ~0x60) | (v & 0x60));
      break;
    default:
      break;
  }
}

uint32_t IdeController::read32(uint64_t off) {
  if (off == kBusMaster + 4) return prd_ptr_;
  return read(off);
}

void IdeController::write32(uint64_t off, uint32_t v) {
  if (off == kBusMaster + 4)
    prd_ptr_ = v & ~3u;  // dword aligned
  else
    write(off, uint8_t(v));
}

void IdeController::start_dma() {
  command_pending_ = false;
  dma_index_ = 0;
  dma_off_ = 0;
  dma_step();
}

void IdeController::dma_step() {
  const sc_time now = sc_core::sc_time_stamp();
  const double rate = udma_rate();
  const uint64_t total = uint64_t(plan_.sectors) * 512;
  const sc_time tenure = pci_.clock() * double(4 + p_.burst_bytes / 4);  // arb+addr+data+idle
  const uint32_t base = prd_ptr_ + uint32_t(dma_index_) * 8;
  const PrdEntry e = PrdEntry::decode(dram_.read32(base), dram_.read32(base + 4));
  if (e.crosses_64k()) stats_.prd_64k_violations++;
  const uint64_t bytes = std::min<uint64_t>(e.bytes, total - dma_off_);
  const uint32_t first = uint32_t(dma_off_ / 512), last = uint32_t((dma_off_ + bytes - 1) / 512);
  // The entry moves as the drive delivers: no faster than UDMA, no earlier than
  // the media, after the PRD fetch from DRAM; both need GNT#, which a transaction
  // holding the bus (a pre-2.1 target's wait states) keeps away until it ends.
  const sc_time fetched = pci_.free_at(now) + p_.prd_fetch;
  const sc_time start = pci_.free_at(std::max(fetched, plan_.ready(first)));
  const sc_time end =
      std::max(start + transfer_time(bytes, rate), plan_.ready(last) + transfer_time(512, rate));
  pci::BurstTrain tr;
  tr.master = master_;
  tr.start = start;
  tr.end = end;
  const double bursts = std::max(1.0, double(bytes) / p_.burst_bytes);
  tr.period = (end - start) / bursts;
  tr.tenure = std::min(tenure, tr.period);
  tr.bytes = bytes;
  tr.to_memory = (bm_cmd_ & WRITE_TO_MEMORY) != 0;
  pci_.announce(tr);
  stats_.prd_entries++;
  stats_.longest_entry = std::max(stats_.longest_entry, end - start);
  stats_.bytes += bytes;
  dma_off_ += bytes;
  dma_index_++;
  if (e.eot || dma_off_ >= total || dma_index_ >= kMaxPrdEntries) {
    stats_.busy += end - command_time_;
    done_ev_.notify(end - now);
  } else {
    step_ev_.notify(end - now);  // the next entry's PRD is fetched when this one is done
  }
}

void IdeController::complete() {
  status_ = DRDY;
  bm_status_ = uint8_t((bm_status_ & ~ACTIVE) | INTERRUPT);
  raise_irq();
}

void IdeController::raise_irq() {
  if (devctl_ & 0x02) return;  // nIEN
  irq_pending_ = true;
  intrq.set(true);
}

}  // namespace latsim::ide
