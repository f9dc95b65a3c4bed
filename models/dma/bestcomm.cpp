#include "models/dma/bestcomm.h"
#include <algorithm>
#include <cstring>
#include <vector>
#include "common/log.h"
#include "models/common/register_transport.h"
#include "models/net/ethernet.h"

namespace latsim::dma {

params::Table<BestcommParams> bestcomm_keys() {
  using namespace params;
  using P = BestcommParams;
  return {
      bind(with_source(integer("burst_overhead_clocks", 0, 64, "clocks",
                               "XLB clocks per BestComm burst beyond its data beats: address "
                               "tenure and arbitration"),
                       "assumption: one address tenure and two arbitration clocks per burst"),
           &P::burst_overhead_clocks),
  };
}

namespace {
uint32_t div_up(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
}  // namespace

Bestcomm::Bestcomm(sc_core::sc_module_name name, const BestcommParams& p, chipset::Dram& dram,
                   pci::PciBus& xlb)
    : sc_module(name),
      socket("socket"),
      p_(p),
      dram_(dram),
      xlb_(xlb),
      master_(xlb.add_master(std::string(basename()))) {
  socket.register_b_transport(this, &Bestcomm::b_transport);
  SC_HAS_PROCESS(Bestcomm);
  SC_METHOD(complete);
  sensitive << done_ev_;
  dont_initialize();
}

void Bestcomm::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
  register_transport(*this, p);
}

sc_time Bestcomm::burst_tenure(uint32_t bytes) const {
  const sc_time clk = sc_time(1e6 / p_.xlb_mhz, SC_PS);
  return clk * double(p_.burst_overhead_clocks + div_up(bytes, p_.xlb_bytes_per_clock));
}

uint32_t Bestcomm::sram32(uint32_t off) const {
  uint32_t v = 0;
  if (off + 4 <= kSramBytes) std::memcpy(&v, &sram_[off], 4);
  return v;
}

void Bestcomm::set_sram32(uint32_t off, uint32_t v) {
  if (off + 4 <= kSramBytes) std::memcpy(&sram_[off], &v, 4);
}

uint32_t Bestcomm::read(uint64_t offset, unsigned) {
  if (offset >= kSram) return sram32(uint32_t(offset - kSram));
  if (offset == INT_PEND) return int_pend_;
  if (offset == INT_MASK) return int_mask_;
  if (offset >= TCR0 && offset < TCR0 + 2 * tcr_.size()) return tcr_[(offset - TCR0) / 2];
  return 0;
}

void Bestcomm::write(uint64_t offset, unsigned, uint32_t v) {
  if (offset >= kSram) {
    set_sram32(uint32_t(offset - kSram), v);
  } else if (offset == INT_PEND) {
    int_pend_ &= ~v;  // write 1 to clear (mpc52xx_sdma_ack)
  } else if (offset == INT_MASK) {
    int_mask_ = v;
  } else if (offset >= TCR0 && offset < TCR0 + 2 * tcr_.size()) {
    const size_t n = (offset - TCR0) / 2;
    const bool was = tcr_[n] & TASK_ENABLE;
    tcr_[n] = uint16_t(v);
    if (!was && (tcr_[n] & TASK_ENABLE)) next_bd_[std::min<size_t>(n, kTasks - 1)] = 0;
    if (n == kFecTx && (tcr_[n] & TASK_ENABLE)) start_tx();  // bcom_enable: walk ready BDs
  }
  update_irq();
}

Bestcomm::Ring Bestcomm::ring(unsigned task) const {
  return {sram32(kVarTable + 8 * task), sram32(kVarTable + 8 * task + 4), next_bd_[task]};
}

void Bestcomm::advance(unsigned task) {
  const Ring r = ring(task);
  next_bd_[task] = r.count ? (r.next + 1) % r.count : 0;
}

// The receive task: the frame's bytes leave the FIFO in 32-byte XLB bursts as the wire
// fills it; the descriptor is closed (length, L, READY cleared) after the last burst.
bool Bestcomm::rx_frame(const FifoFrame& f) {
  const Ring r = ring(kFecRx);
  const uint32_t bd = r.base + r.next * kBdBytes;
  if (!(tcr_[kFecRx] & TASK_ENABLE) || !r.count || !(sram32(bd) & BD_READY)) {
    stats_.rx_dropped_no_bd++;
    return false;
  }
  const sc_time now = sc_core::sc_time_stamp();
  const uint32_t len = f.frame_bytes, b = p_.burst_bytes, n = div_up(len, b);
  sc_time s = std::max(now, rx_free_);
  for (uint32_t k = 1; k < n; ++k) {
    const sc_time ready =
        f.first_bit +
        net::wire_time(net::kPreambleBytes + std::min((k + 1) * b, len), f.wire_mbit_s);
    s = std::max(s + burst_tenure(b), ready);
  }
  const sc_time end = s + burst_tenure(len - (n - 1) * b);
  xlb_.announce(pci::BurstTrain::spread(master_, std::max(now, rx_free_), end, n, burst_tenure(b),
                                        len, true));
  rx_free_ = end;
  const uint32_t status = (sram32(bd) & ~(BD_READY | BD_LEN_MASK)) | RX_BD_L | (len & BD_LEN_MASK);
  // The buffer's contents: our frame, destination address first (a test pattern after it).
  std::vector<uint8_t> data(len);
  for (uint32_t i = 0; i < len; ++i) data[i] = uint8_t(i);
  dram_.write(sram32(bd + 4), data.data(), len);
  done_.push_back({end, kFecRx, bd, status});
  std::stable_sort(done_.begin(), done_.end(),
                   [](const Done& a, const Done& c) { return a.at < c.at; });
  advance(kFecRx);
  done_ev_.notify(done_.front().at - now);
  return true;
}

// The transmit task: every ready descriptor from its pointer on, its buffer read over the
// XLB into the Tx FIFO; the FIFO drains at wire speed, so a frame waits for the previous one.
// READY stays set until the move is done (bcom_buffer_done reads it).
void Bestcomm::start_tx() {
  const sc_time now = sc_core::sc_time_stamp();
  for (Ring r = ring(kFecTx); r.count; r = ring(kFecTx)) {
    const uint32_t bd = r.base + r.next * kBdBytes;
    const uint32_t st = sram32(bd);
    if (!(st & BD_READY)) break;
    const uint32_t len = std::max(1u, st & BD_LEN_MASK), b = p_.burst_bytes, n = div_up(len, b);
    const sc_time start = std::max({now, tx_free_, tx_wire_free_});
    const sc_time end = start + burst_tenure(b) * double(n - 1) + burst_tenure(len - (n - 1) * b);
    xlb_.announce(pci::BurstTrain::spread(master_, start, end, n, burst_tenure(b), len, false));
    tx_free_ = end;
    tx_wire_free_ =
        end +
        net::frame_on_wire(std::max(len, net::kMinPayloadBytes) + net::kFcsBytes, tx_wire_mbit_s_) +
        net::wire_time(net::kIfgBytes, tx_wire_mbit_s_);
    stats_.tx_frames++;
    stats_.tx_bytes += len;
    done_.push_back({end, kFecTx, bd, st});
    advance(kFecTx);
  }
  std::stable_sort(done_.begin(), done_.end(),
                   [](const Done& a, const Done& c) { return a.at < c.at; });
  if (!done_.empty()) done_ev_.notify(std::max(SC_ZERO_TIME, done_.front().at - now));
}

void Bestcomm::complete() {
  const sc_time now = sc_core::sc_time_stamp();
  while (!done_.empty() && done_.front().at <= now) {
    const Done d = done_.front();
    done_.pop_front();
    if (d.task == kFecRx) {
      stats_.rx_frames++;
      stats_.rx_bytes += d.status & BD_LEN_MASK;
      set_sram32(d.bd, d.status);
    } else {
      set_sram32(d.bd, d.status & ~BD_READY);
    }
    LATSIM_DEBUG(nic, name(), "task {} descriptor at SRAM {:#x} done", d.task, d.bd);
    int_pend_ |= 1u << d.task;
  }
  update_irq();
  if (!done_.empty()) done_ev_.notify(done_.front().at - now);
}

void Bestcomm::update_irq() {
  const bool level = (int_pend_ & ~int_mask_) != 0;
  if (level && !irq.level()) stats_.irqs++;
  irq.set(level);  // the SDMA line stays up while an unmasked task bit is pending
}

}  // namespace latsim::dma
