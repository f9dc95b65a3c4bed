#include "models/scsi/aic7880.h"
#include <algorithm>
#include "common/log.h"
#include "models/common/knobs.h"

namespace latsim::scsi {

params::Table<Aic7880Params> aic7880_keys() {
  using namespace params;
  using P = Aic7880Params;
  return {
      bind(with_source(knobs::intx_irq("irq", "ISA IRQ the AIC-7880's INTA# is steered to"),
                       "assumption: a free IRQ for the AHA-2940UW's slot"),
           &P::irq),
      bind(with_source(number("bus_mb_s", 5, 160, "MB/s", "synchronous SCSI data-phase rate"),
                       "AIC-7880: Fast-20 (Ultra) on a 16-bit bus, 40 MB/s"),
           &P::bus_mb_s),
      bind(with_source(number("sequencer_mips", 1, 100, "MIPS", "the sequencer's speed"),
                       "aic7xxx driver's chip table: aic7880 10 MIPS"),
           &P::sequencer_mips),
      bind(with_source(integer("command_instructions", 0, 10000, "instructions",
                               "sequencer work from a QINFIFO entry to its CDB sent"),
                       "assumption: the sequencer's selection path, ~150 instructions"),
           &P::command_instructions),
      bind(with_source(integer("reselect_instructions", 0, 10000, "instructions",
                               "sequencer work from a reselection to the data phase"),
                       "assumption: IDENTIFY and tag messages, SCB lookup by tag"),
           &P::reselect_instructions),
      bind(with_source(integer("complete_instructions", 0, 10000, "instructions",
                               "sequencer work from status to the QOUTFIFO post"),
                       "assumption"),
           &P::complete_instructions),
      bind(with_source(number("selection_us", 0, 1000, "us",
                              "bus phases of a new command: arbitration to the CDB sent"),
                       "assumption: SCSI-2 arbitration and selection delays, asynchronous "
                       "message and command bytes"),
           &P::selection_us),
      bind(with_source(number("reselection_us", 0, 1000, "us",
                              "bus phases of a reconnection: arbitration to data"),
                       "assumption"),
           &P::reselection_us),
      bind(with_source(
               number("status_us", 0, 1000, "us", "status and COMMAND COMPLETE message phases"),
               "assumption"),
           &P::status_us),
      bind(with_source(multiple_of(integer("burst_bytes", 4, 256, "bytes",
                                           "bytes the AIC-7880 moves per PCI memory burst"),
                                   4),
                       "assumption: half its 256-byte data FIFO (AIC-7880: 256-byte FIFO)"),
           &P::burst_bytes),
      bind(with_source(of_type(ValueType::Bool, "disconnect",
                               "targets may disconnect during seek and rotation (SCSI-Select)"),
                       "AHA-2940UW SCSI-Select default: disconnection enabled"),
           &P::disconnect),
      bind(knobs::latency_timer("the AIC-7880's Latency Timer (setpci); -1: "
                                "platform.pci.latency_timer"),
           &P::latency_timer),
  };
}

Aic7880::Aic7880(sc_core::sc_module_name name, const Aic7880Params& p, Ddys& target,
                 chipset::Dram& dram, pci::PciBus& pci)
    : sc_module(name), socket("socket"), p_(p), target_(target), dram_(dram), pci_(pci) {
  socket.register_b_transport(this, &Aic7880::b_transport);
  // A data phase held off the PCI bus by a host transaction ends later: so does its status.
  master_ = pci_.add_master(
      std::string(basename()),
      [this](const pci::BurstTrain& before, pci::BurstTrain& after) {
        if (!head_in_data_) return;
        done_at_ += after.end - before.end;
        done_ev_.cancel();
        done_ev_.notify(done_at_ - sc_core::sc_time_stamp());
      },
      &pci_config_);
  if (p_.latency_timer >= 0) pci_config_.set_latency_timer(uint8_t(p_.latency_timer));
  SC_HAS_PROCESS(Aic7880);
  SC_METHOD(data_phase);
  sensitive << data_ev_;
  dont_initialize();
  SC_METHOD(complete);
  sensitive << done_ev_;
  dont_initialize();
}

pci::PciIdentity Aic7880::pci_identity() {
  pci::PciIdentity id;  // AIC-7880 on an AHA-2940UW
  id.vendor_id = 0x9004;
  id.device_id = 0x8078;
  id.revision_id = 0x01;
  id.class_code = 0x010000;  // SCSI bus controller
  id.command_bits = pci::PciConfig::IO_SPACE | pci::PciConfig::BUS_MASTER;
  id.interrupt_pin = 1;
  id.bars[0] = {256, true};  // the registers in I/O space
  return id;
}

void Aic7880::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  regs_.transport(p, delay);
}

uint32_t Aic7880::read(uint64_t off, unsigned len) { return regs_.read(uint32_t(off), len); }
void Aic7880::write(uint64_t off, unsigned len, uint32_t v) { regs_.write(uint32_t(off), len, v); }

void Aic7880::write_hcntrl(uint32_t v, const RegIo&) {
  hcntrl_ = v;
  update_irq();
}

uint32_t Aic7880::read_intstat(const RegIo&) { return intstat_; }

void Aic7880::write_clrint(uint32_t v, const RegIo&) {
  if (v & CMDCMPLT) intstat_ = intstat_ & ~uint32_t(CMDCMPLT);
  update_irq();
}

void Aic7880::update_irq() {
  const bool level = (intstat_ & CMDCMPLT) && (hcntrl_ & INTEN);
  if (level && !inta.level()) stats_.irqs++;
  inta.set(level);
}

// The driver put SCB numbers in the QINFIFO up to (not including) slot v.
void Aic7880::write_qinpos(uint32_t v, const RegIo& io) {
  qinpos_ = v;
  const uint64_t qinfifo = uint64_t(shared_addr_) + 256;
  for (; qin_seen_ != uint8_t(v); ++qin_seen_) {
    uint8_t tag = 0;
    dram_.read(qinfifo + qin_seen_, &tag, 1);
    start_scb(tag, io.at);
  }
}

uint64_t Aic7880::sg_bytes(uint32_t sgptr) const {
  uint64_t n = 0;
  for (uint32_t i = 0; i < 256; ++i) {  // struct ahc_dma_seg: address, length | last
    const uint32_t len = dram_.read32(sgptr + i * 8 + 4);
    n += len & 0x00ffffffu;
    if (len & kSgLast) break;
  }
  return n;
}

sc_time Aic7880::burst_tenure(uint32_t bytes) const {
  return pci_.clock() *
         double(p_.burst_overhead_clocks +
                (bytes + uint32_t(pci_.bytes_per_clock()) - 1) / uint32_t(pci_.bytes_per_clock()));
}

// The adapter (ID 7) wins arbitration at the first bus free: a selection waits only for
// the command holding the bus then, and the phases planned after it move by its length.
sc_time Aic7880::selection_at(sc_time t, sc_time length) {
  for (const Scb& s : scbs_)
    if (t >= s.hold_from && t < s.hold_to) t = s.hold_to;
  sc_time cursor = t + length;
  for (size_t i = head_in_data_ ? 1 : 0; i < scbs_.size(); ++i) {
    Scb& s = scbs_[i];
    if (s.hold_from < t) continue;
    if (s.hold_from >= cursor) break;
    const sc_time d = cursor - s.hold_from;
    s.hold_from += d, s.hold_to += d, s.data_start += d, s.data_end += d, s.status += d;
    cursor = s.hold_to;
  }
  if (!scbs_.empty()) last_data_end_ = std::max(last_data_end_, scbs_.back().hold_to);
  return t;
}

void Aic7880::start_scb(uint8_t tag, sc_time now) {
  const uint64_t scb = uint64_t(hscb_addr_) + uint64_t(tag) * kScbBytes;
  uint8_t cdb[10] = {}, control = 0;
  dram_.read(scb + SCB_CDB, cdb, sizeof cdb);
  dram_.read(scb + SCB_CONTROL, &control, 1);
  const bool write = cdb[0] == kWrite10;
  const uint64_t lba =
      (uint64_t(cdb[2]) << 24) | (uint64_t(cdb[3]) << 16) | (uint64_t(cdb[4]) << 8) | cdb[5];
  const uint32_t sectors = (uint32_t(cdb[7]) << 8) | cdb[8];
  // The sequencer DMAs the SCB in (one 64-byte PCI read), then selects the target.
  const sc_time fetched = pci_.free_at(std::max(now, seq_free_)) + burst_tenure(kScbBytes);
  const sc_time ready = fetched + p_.instructions(p_.command_instructions);
  const sc_time sel = selection_at(ready, sc_time(p_.selection_us, SC_US));
  if (sel > ready) stats_.selections_delayed++;
  const sc_time cdb_sent = sel + sc_time(p_.selection_us, SC_US);
  seq_free_ = cdb_sent;
  const TargetPlan t = target_.queue(write, lba, sectors, cdb_sent);
  Scb s;
  s.tag = tag;
  s.write = write;
  s.bytes = sg_bytes(dram_.read32(scb + SCB_SGPTR));
  s.queued = now;
  plan_bus(s, t, sel, cdb_sent, p_.disconnect && (control & DISCENB));
  LATSIM_DEBUG(scsi, name(), "SCB {} {} lba {} +{}: CDB sent {}, data {} .. {}", tag,
               write ? "WRITE(10)" : "READ(10)", lba, sectors, cdb_sent, s.data_start, s.data_end);
  scbs_.push_back(s);
  stats_.commands++;
  stats_.max_outstanding = std::max<uint64_t>(stats_.max_outstanding, scbs_.size());
  if (scbs_.size() == 1) data_ev_.notify(s.data_start - sc_core::sc_time_stamp());
}

// Data phases follow each other on the bus in the target's order. A target that must
// seek, or has earlier commands' data to move first, disconnects (if allowed) and
// reconnects for the data; otherwise the command holds the bus from selection to status.
void Aic7880::plan_bus(Scb& s, const TargetPlan& t, sc_time sel, sc_time cdb_sent, bool disc) {
  const sc_time resel =
      sc_time(p_.reselection_us, SC_US) + p_.instructions(p_.reselect_instructions);
  const sc_time go = std::max(t.reselect, last_data_end_);
  const bool disconnected = disc && (t.disconnects || last_data_end_ > cdb_sent);
  s.data_start = disconnected ? go + resel : std::max(go, cdb_sent);
  s.hold_from = disconnected ? go : sel;
  s.data_end = std::max(s.data_start + (t.data_end - t.reselect), t.data_end);
  s.status = std::max(s.data_end, t.status);
  s.hold_to = last_data_end_ = s.status + sc_time(p_.status_us, SC_US);
  if (disconnected) stats_.disconnects++;
  stats_.bus_busy += s.hold_to - s.hold_from + (disconnected ? cdb_sent - sel : SC_ZERO_TIME);
}

void Aic7880::data_phase() {
  const sc_time now = sc_core::sc_time_stamp();
  Scb& s = scbs_.front();
  if (s.data_start > now) return data_ev_.notify(s.data_start - now);
  head_in_data_ = true;
  const sc_time start = pci_.free_at(now);
  const sc_time end = std::max(s.data_end, start + (s.data_end - s.data_start));
  const uint32_t bursts = uint32_t(std::max<uint64_t>(1, s.bytes / p_.burst_bytes));
  pci::BurstTrain tr;
  tr.master = master_;
  tr.start = start;
  tr.end = end;
  tr.period = ps(to_ps(end - start) / bursts);
  tr.tenure = std::min(burst_tenure(p_.burst_bytes), tr.period);
  tr.bytes = s.bytes;
  tr.to_memory = !s.write;
  pci_.announce(tr);
  stats_.bytes += s.bytes;
  if (s.write) stats_.bytes_written += s.bytes;
  stats_.longest_data_phase = std::max(stats_.longest_data_phase, end - start);
  done_at_ = std::max(end, s.status) + sc_time(p_.status_us, SC_US) +
             p_.instructions(p_.complete_instructions);
  done_ev_.notify(done_at_ - now);
}

void Aic7880::complete() {
  const Scb s = scbs_.front();
  scbs_.pop_front();
  head_in_data_ = false;
  const sc_time now = sc_core::sc_time_stamp();
  stats_.busy += now - s.queued;
  dram_.write(uint64_t(shared_addr_) + qout_next_++, &s.tag, 1);  // QOUTFIFO post
  LATSIM_DEBUG(scsi, name(), "SCB {} complete, {} queued", s.tag, scbs_.size());
  intstat_ = intstat_ | CMDCMPLT;
  update_irq();
  if (!scbs_.empty()) data_ev_.notify(std::max(now, scbs_.front().data_start) - now);
}

}  // namespace latsim::scsi
