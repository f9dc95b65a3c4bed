#include "models/ide/ide_controller.h"
#include <algorithm>
#include "common/log.h"
#include "models/common/knobs.h"

namespace latsim::ide {

double udma_mb_s(int mode) {
  static const double rates[] = {16.7, 25.0, 33.3, 44.4, 66.7, 100.0};
  return rates[std::clamp(mode, 0, 5)];
}

sc_time pio_cycle(int mode) {
  static const double t0_ns[] = {600, 383, 240, 180, 120};
  return sc_time(t0_ns[std::clamp(mode, 0, 4)], SC_NS);
}

params::Table<IdeControllerParams> ide_controller_keys() {
  using namespace params;
  using P = IdeControllerParams;
  return {
      bind(with_source(integer("udma_mode", 0, 5, "UDMA mode", "Ultra DMA mode (2 = 33 MB/s)"),
                       "CALIBRATION.md reference machine: bus-master DMA at udma2"),
           &P::udma_mode),
      bind(with_source(multiple_of(integer("burst_bytes", 4, 65536, "bytes",
                                           "bytes the IDE bus master moves per PCI memory burst"),
                                   4),
                       "CALIBRATION.md IDE: PIIX4 memory writes are 4-dword bursts; assumption: "
                       "the 686B is alike"),
           &P::burst_bytes),
      bind(with_source(
               number("prd_fetch_ns", 0, 100000, "ns",
                      "the master's gap between scatter-gather entries, the next PRD's "
                      "fetch (under one DRAM access: a CPU gets one FSB transaction per "
                      "entry)"),
               "fitted (O1): 4 PCI clocks, the next PRD prefetched during the entry; the seed's "
               "~70 us steps of a miss or two (500 ns let three through)"),
           &P::prd_fetch_ns),
      bind(with_source(of_type(ValueType::Bool, "memory_write_invalidate",
                               "the IDE bus master writes memory with MWI: it leaves the bus only "
                               "at a cache-line boundary after its latency timer expires"),
                       "assumption: the command register's MWI bit left clear"),
           &P::memory_write_invalidate),
      bind(with_source(integer("pio_mode", 0, 4, "PIO mode",
                               "ATA PIO mode of the drive (4 = 120 ns cycle)"),
                       "assumption: the drive's fastest mode (ATA/ATAPI-5 PIO 4)"),
           &P::pio_mode),
      bind(knobs::latency_timer("the IDE function's Latency Timer (setpci); -1: "
                                "platform.pci.latency_timer"),
           &P::latency_timer),
  };
}

IdeController::IdeController(sc_core::sc_module_name name, const IdeControllerParams& p,
                             disk::DiskDrive& disk, chipset::Dram& dram, pci::PciBus& pci)
    : sc_module(name), socket("socket"), p_(p), disk_(disk), dram_(dram), pci_(pci) {
  socket.register_b_transport(this, &IdeController::b_transport);
  // An entry announced but not started when a held transaction took the bus starts
  // when the bus is free again: move the end-of-entry event with it.
  master_ = pci_.add_master(
      std::string(basename()),
      [this](const pci::BurstTrain& before, pci::BurstTrain& after) {
        const sc_time now = sc_core::sc_time_stamp();
        const uint32_t base = prd_ptr_ + uint32_t(dma_index_ - 1) * 8;
        const bool last = PrdEntry::decode(dram_.read32(base), dram_.read32(base + 4)).eot ||
                          dma_off_ >= uint64_t(cmd_sectors()) * 512 || dma_index_ >= kMaxPrdEntries;
        // The entries after it move with it only as far as the drive's data allows.
        after.run_end = last ? after.end : run_end(dma_index_, dma_off_, after.end);
        sc_core::sc_event& ev = last ? done_ev_ : step_ev_;
        ev.cancel();
        ev.notify((last ? done_at(after.end) : after.end) - now);
        if (last) stats_.busy += after.end - before.end;
      },
      &pci_config_);
  if (p_.latency_timer >= 0) pci_config_.set_latency_timer(uint8_t(p_.latency_timer));
  SC_HAS_PROCESS(IdeController);
  SC_METHOD(dma_step);
  sensitive << step_ev_;
  dont_initialize();
  SC_METHOD(complete);
  sensitive << done_ev_;
  dont_initialize();
  SC_METHOD(pio_ready);
  sensitive << pio_ev_;
  dont_initialize();
}

pci::PciIdentity IdeController::pci_identity() {
  pci::PciIdentity id;  // VT82C686B function 1, legacy mode (IRQ 14, no INTx# pin)
  id.vendor_id = 0x1106;
  id.device_id = 0x0571;
  id.revision_id = 0x06;
  id.class_code = 0x01018a;  // IDE: bus master, both channels in compatibility mode
  id.command_bits = pci::PciConfig::IO_SPACE | pci::PciConfig::BUS_MASTER;
  id.bars[4] = {16, true};  // bus master IDE registers
  return id;
}

void IdeController::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  regs_.transport(p, delay);
}

uint8_t IdeController::read(uint64_t off) { return uint8_t(regs_.read(uint32_t(off), 1)); }
void IdeController::write(uint64_t off, uint8_t v) { regs_.write(uint32_t(off), 1, v); }
uint32_t IdeController::read32(uint64_t off) { return regs_.read(uint32_t(off), 4); }
void IdeController::write32(uint64_t off, uint32_t v) { regs_.write(uint32_t(off), 4, v); }

// Data register: each 16-bit half is one ATA PIO cycle on the cable, during which
// the controller keeps the PCI transaction in wait states.
uint32_t IdeController::read_data(const RegIo& io) {
  *io.delay += pio_access_time(io.len);
  data_port(io.len, false, sc_core::sc_time_stamp() + *io.delay);
  return 0;
}

void IdeController::write_data(uint32_t, const RegIo& io) {
  *io.delay += pio_access_time(io.len);
  data_port(io.len, true, sc_core::sc_time_stamp() + *io.delay);
}

uint32_t IdeController::read_status(const RegIo&) {
  if (irq_pending_) irq_pending_ = false, intrq.set(false);  // ATA: reading Status acks INTRQ
  return status_;
}

uint32_t IdeController::read_alt_status(const RegIo&) { return status_; }  // no side effect

void IdeController::write_command(uint32_t v, const RegIo&) {
  if (v != kReadDma && v != kWriteDma && v != kReadSectors) return;
  const uint64_t lba = lba_low_ | (uint64_t(lba_mid_) << 8) | (uint64_t(lba_high_) << 16) |
                       (uint64_t(device_ & 0x0f) << 24);
  const uint32_t n = count_ ? count_ : 256;
  command_time_ = sc_core::sc_time_stamp();
  writing_ = v == kWriteDma;
  if (writing_) {
    wplan_ = disk_.write(lba, n, command_time_, transfer_time(512, udma_rate()));
    stats_.write_commands++;
  } else {
    plan_ = disk_.read(lba, n, command_time_);
  }
  status_ = BSY | DRDY;
  stats_.commands++;
  LATSIM_DEBUG(ide, name(), "command {:#04x} ({}) lba {} count {}", v,
               v == kReadDma    ? "READ DMA"
               : v == kWriteDma ? "WRITE DMA"
                                : "READ SECTORS",
               lba, n);
  if (v == kReadSectors) {  // PIO: DRQ and INTRQ when the first sector is buffered
    pio_ = true;
    pio_sector_ = pio_bytes_ = 0;
    pio_ev_.notify(std::max(command_time_, plan_.ready(0)) - command_time_);
    return;
  }
  command_pending_ = true;
  if (bm_cmd_ & START) start_dma();
}

void IdeController::write_devctl(uint32_t v, const RegIo&) {
  devctl_ = v;
  if (v & 0x02) intrq.set(false);  // nIEN masks INTRQ
}

void IdeController::write_bm_command(uint32_t v, const RegIo&) {
  const bool starting = (v & START) && !(bm_cmd_ & START);
  bm_cmd_ = v;
  if (!starting) return;
  bm_status_ |= ACTIVE;
  if (command_pending_) start_dma();
}

void IdeController::start_dma() {
  command_pending_ = false;
  dma_index_ = 0;
  dma_off_ = 0;
  walk_.from = -1;  // a new PRD table and drive plan
  dma_step();
}

void IdeController::dma_step() {
  const sc_time now = sc_core::sc_time_stamp();
  const double rate = udma_rate();
  const uint64_t total = uint64_t(cmd_sectors()) * 512;
  const sc_time tenure =  // arb+addr+data+idle
      pci_.clock() * double(4 + p_.burst_bytes / uint32_t(pci_.bytes_per_clock()));
  const uint32_t base = prd_ptr_ + uint32_t(dma_index_) * 8;
  const PrdEntry e = PrdEntry::decode(dram_.read32(base), dram_.read32(base + 4));
  if (e.crosses_64k()) stats_.prd_64k_violations++;
  const uint64_t bytes = std::min<uint64_t>(e.bytes, total - dma_off_);
  const uint32_t first = uint32_t(dma_off_ / 512), last = uint32_t((dma_off_ + bytes - 1) / 512);
  // The entry moves as the drive delivers: no faster than UDMA, no earlier than
  // the media, after the PRD fetch from DRAM; both need GNT#, which a transaction
  // holding the bus (a pre-2.1 target's wait states) keeps away until it ends.
  const sc_time fetched = pci_.free_at(now) + p_.prd_fetch();
  const sc_time start = pci_.free_at(std::max(fetched, sector_ready(first)));
  const sc_time end =
      std::max(start + transfer_time(bytes, rate), sector_ready(last) + transfer_time(512, rate));
  pci::BurstTrain tr;
  tr.master = master_;
  tr.start = start;
  tr.end = end;
  const double bursts = std::max(1.0, double(bytes) / p_.burst_bytes);
  tr.period = (end - start) / bursts;
  tr.tenure = std::min(tenure, tr.period);
  tr.bytes = bytes;
  tr.to_memory = (bm_cmd_ & WRITE_TO_MEMORY) != 0;
  if (tr.to_memory && p_.memory_write_invalidate) tr.mwi_line_clocks = int(p_.cache_line_bytes / 4);
  const bool last_entry = e.eot || dma_off_ + bytes >= total || dma_index_ + 1 >= kMaxPrdEntries;
  tr.run_end = last_entry ? end : run_end(dma_index_ + 1, dma_off_ + bytes, end);
  LATSIM_DEBUG(ide, name(), "DMA PRD entry {}: {} bytes {} memory, {} .. {}", dma_index_, bytes,
               tr.to_memory ? "to" : "from", start, end);
  pci_.announce(tr);
  stats_.prd_entries++;
  stats_.longest_entry = std::max(stats_.longest_entry, end - start);
  stats_.bytes += bytes;
  if (writing_) stats_.bytes_written += bytes;
  dma_off_ += bytes;
  dma_index_++;
  if (e.eot || dma_off_ >= total || dma_index_ >= kMaxPrdEntries) {
    stats_.busy += done_at(end) - command_time_;
    done_ev_.notify(done_at(end) - now);
  } else {
    step_ev_.notify(end - now);  // the next entry's PRD is fetched when this one is done
  }
}

sc_time IdeController::run_end(int next, uint64_t off, sc_time end) const {
  // Assumption: the engine keeps REQ# asserted into the next entry when the drive already
  // has its first sector once that PRD is fetched (DMARQ stays up while the drive's buffer
  // has data); otherwise REQ# drops while the drive waits on the media.
  // Host transactions to come are unknown here; a deferral recomputes it (add_master).
  const int k = next - walk_.from;
  if (walk_.from >= 0 && k >= 0 && size_t(k) < walk_.ends.size() && walk_.ends[size_t(k)] == end)
    return walk_.result;
  walk_.from = next;
  walk_.ends.assign(1, end);
  const double rate = udma_rate();
  const sc_time prd_fetch = p_.prd_fetch(), sector_time = transfer_time(512, rate);
  const uint64_t total = uint64_t(cmd_sectors()) * 512;
  for (; off < total && next < kMaxPrdEntries; ++next) {
    const uint32_t base = prd_ptr_ + uint32_t(next) * 8;
    const PrdEntry e = PrdEntry::decode(dram_.read32(base), dram_.read32(base + 4));
    const uint64_t bytes = std::min<uint64_t>(e.bytes, total - off);
    const uint32_t first = uint32_t(off / 512), last = uint32_t((off + bytes - 1) / 512);
    const sc_time fetched = end + prd_fetch;
    if (sector_ready(first) > fetched) break;  // a gap: REQ# drops
    end = std::max(fetched + transfer_time(bytes, rate),
                   sector_ready(last) + sector_time);  // as dma_step
    off += bytes;
    walk_.ends.push_back(end);
    if (e.eot) break;
  }
  walk_.result = end;
  return end;
}

void IdeController::complete() {
  LATSIM_DEBUG(ide, name(), "DMA done: {} PRD entries, {} bytes", dma_index_, dma_off_);
  status_ = DRDY;
  bm_status_ = (bm_status_ & ~ACTIVE) | INTERRUPT;
  raise_irq();
}

sc_time IdeController::sector_ready(uint32_t i) const {
  return writing_ ? wplan_.ready(i) : plan_.ready(i);
}

sc_time IdeController::done_at(sc_time dma_end) const {
  // Without write cache the drive reports a write only once it is on the media.
  if (writing_ && !wplan_.write_back) return std::max(dma_end, wplan_.media_done);
  return dma_end;
}

sc_time IdeController::pio_access_time(unsigned len) const {
  return pio_cycle(p_.pio_mode) * double(std::max(1u, len / 2));
}

void IdeController::data_port(unsigned len, bool write, sc_time done) {
  stats_.pio_accesses++;
  if (write || !pio_ || !(status_ & DRQ)) return;  // no data-in phase (PIO out not modelled)
  pio_bytes_ += len;
  if (pio_bytes_ < 512) return;
  stats_.pio_sectors++;
  stats_.bytes += 512;
  pio_bytes_ = 0;
  if (++pio_sector_ >= plan_.sectors) {  // last DRQ block read: command done, no interrupt
    status_ = DRDY;
    pio_ = false;
    stats_.busy += done - command_time_;
    return;
  }
  // The drive moves to the next sector once this access's ATA cycles are over.
  status_ = BSY | DRDY;
  pio_ev_.notify(std::max(done, plan_.ready(pio_sector_)) - sc_core::sc_time_stamp());
}

void IdeController::pio_ready() {
  status_ = DRQ | DRDY;
  raise_irq();  // ATA PIO data-in: INTRQ at the start of every DRQ block
}

void IdeController::raise_irq() {
  if (devctl_ & 0x02) return;  // nIEN
  LATSIM_DEBUG(ide, name(), "INTRQ raised");
  irq_pending_ = true;
  intrq.set(true);
}

}  // namespace latsim::ide
