#include "models/net/rtl8139.h"
#include <algorithm>
#include <cstring>
#include <vector>
#include "common/log.h"
#include "models/common/knobs.h"
#include "models/common/register_transport.h"
#include "models/net/ethernet.h"

namespace latsim::net {

params::Table<Rtl8139Params> rtl8139_keys() {
  using namespace params;
  using P = Rtl8139Params;
  return {
      bind(with_source(knobs::intx_irq("irq",
                                       "ISA IRQ / IO-APIC pin the RTL8139's INTA# is "
                                       "steered to"),
                       "assumption: the 686B steers the RTL8139's INTA# to IRQ 11 (no seed shows "
                       "it)"),
           &P::irq),
      bind(knobs::latency_timer("the RTL8139's Latency Timer (setpci); -1: "
                                "platform.pci.latency_timer"),
           &P::latency_timer),
      bind(with_source(number("wire_mbit_s", 1, 1000, "Mbit/s", "line rate of the cable"),
                       "RTL8139C datasheet: 100BASE-TX"),
           &P::wire_mbit_s),
      bind(with_source(integer("tx_fifo_bytes", 256, 65536, "bytes",
                               "transmit FIFO the NIC fills by bus-master reads"),
                       "RTL8139C datasheet: 2 KB transmit FIFO"),
           &P::tx_fifo_bytes),
      bind(with_source(integer("burst_overhead_clocks", 0, 64, "clocks",
                               "per PCI burst: arbitration, address, turnaround, idle"),
                       "assumption: arbitration, address, turnaround and one idle clock per "
                       "burst"),
           &P::burst_overhead_clocks),
  };
}

namespace {
constexpr std::array<uint8_t, 6> kPeerMac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};  // the far end
uint32_t align4(uint32_t v) { return (v + 3) & ~3u; }
uint32_t div_up(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
}  // namespace

Rtl8139::Rtl8139(sc_core::sc_module_name name, const Rtl8139Params& p, chipset::Dram& dram,
                 pci::PciBus& pci)
    : sc_module(name),
      socket("socket"),
      p_(p),
      dram_(dram),
      pci_(pci),
      master_(pci.add_master(std::string(basename()), {}, &pci_config_)),
      source_(p.rx, p.wire_mbit_s, std::string(this->name()) + ".rx") {
  socket.register_b_transport(this, &Rtl8139::b_transport);
  if (p_.latency_timer >= 0) pci_config_.set_latency_timer(uint8_t(p_.latency_timer));
  idr0_.set_reset_value(p_.mac[0] | p_.mac[1] << 8 | p_.mac[2] << 16 | uint32_t(p_.mac[3]) << 24);
  idr4_.set_reset_value(p_.mac[4] | p_.mac[5] << 8);
  reset();
  SC_HAS_PROCESS(Rtl8139);
  SC_METHOD(rx_step);  // runs once at start to fetch the first arrival
  sensitive << rx_ev_;
  SC_METHOD(tx_step);
  sensitive << tx_ev_;
  dont_initialize();
}

pci::PciIdentity Rtl8139::pci_identity() {
  pci::PciIdentity id;  // RTL8139C; MIN_GNT 8 us, MAX_LAT 16 us
  id.vendor_id = 0x10ec;
  id.device_id = 0x8139;
  id.revision_id = 0x10;
  id.class_code = 0x020000;  // Ethernet controller
  id.command_bits =
      pci::PciConfig::IO_SPACE | pci::PciConfig::MEMORY_SPACE | pci::PciConfig::BUS_MASTER;
  id.interrupt_pin = 1;
  id.min_gnt = 0x20;
  id.max_lat = 0x40;
  id.bars[0] = {256, true};   // IOAR: the registers in I/O space
  id.bars[1] = {256, false};  // MEMAR: the same in memory space
  return id;
}

void Rtl8139::reset() {
  const sc_time now = sc_core::sc_time_stamp();
  regs_.reset();
  tctr_base_ = now;
  rx_dma_.reset();  // a transfer cut short by reset never completes
  for (auto& s : tx_) s = TxSlot{TSD_OWN, SC_ZERO_TIME, sc_core::sc_max_time()};
  tx_pending_.clear();
  prev_tx_bytes_ = 0;
  update_irq();
}

void Rtl8139::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
  register_transport(*this, p);
}

uint32_t Rtl8139::ring_used() const {
  const uint32_t ring = ring_bytes();
  const uint32_t rd = uint32_t(capr_ + 16) % ring;  // CAPR trails the read point by 16
  return (cbr_ + ring - rd) % ring;
}

uint32_t Rtl8139::read(uint64_t offset, unsigned len) {
  return regs_.read(unsigned(offset & 0xff), len);
}

void Rtl8139::write(uint64_t offset, unsigned len, uint32_t v) {
  regs_.write(unsigned(offset & 0xff), len, v);
}

uint32_t Rtl8139::read_cr(const RegIo&) {
  const sc_time now = sc_core::sc_time_stamp();
  return cr_ | (now < rst_until_ ? uint32_t(RST) : 0u) | (ring_used() == 0 ? uint32_t(BUFE) : 0u);
}

void Rtl8139::write_cr(uint32_t v, const RegIo&) {
  if (!(v & RST)) {
    cr_ = v & (TE | RE);
    return;
  }
  reset();  // software reset: registers to defaults, RST clears when done
  rst_until_ = sc_core::sc_time_stamp() + p_.reset_time;
}

void Rtl8139::write_imr(uint32_t v, const RegIo& io) {
  imr_.apply(v, io);
  update_irq();
}

void Rtl8139::write_isr(uint32_t v, const RegIo& io) {
  isr_.apply(v, io);  // write 1 to clear
  update_irq();
}

uint32_t Rtl8139::read_tctr(const RegIo&) {
  return uint32_t(to_ps(sc_core::sc_time_stamp() - tctr_base_) / to_ps(pci_.clock()));
}

uint32_t Rtl8139::read_msr(const RegIo&) {
  return p_.wire_mbit_s < 100.0 ? 0x08 : 0x00;  // LINKB = 0 (link up), SPEED_10 from the wire
}

uint32_t Rtl8139::read_tx_summary(const RegIo&) {
  uint32_t v = 0;
  for (unsigned n = 0; n < 4; ++n) {
    const uint32_t t = tsd_value(n);
    v |= (t & TSD_TOK ? 1u << (12 + n) : 0) | (t & TSD_OWN ? 1u << n : 0);
  }
  return v;
}

std::array<uint8_t, 6> Rtl8139::mac() const {
  std::array<uint8_t, 6> m;
  for (unsigned i = 0; i < 6; ++i)
    m[i] = uint8_t((i < 4 ? idr0_ >> (8 * i) : idr4_ >> (8 * (i - 4))));
  return m;
}

void Rtl8139::update_irq() {
  const bool level = (isr_ & imr()) != 0;
  if (level && !inta.level()) stats_.irqs++;
  inta.set(level);  // INTA# is level-triggered: up while any unmasked cause is pending
}

sc_time Rtl8139::burst_tenure(uint32_t bytes) const {
  return pci_.clock() *
         double(p_.burst_overhead_clocks + div_up(bytes, uint32_t(pci_.bytes_per_clock())));
}

namespace {}  // namespace

// ---- receive ----

uint32_t Rtl8139::rx_threshold(uint32_t frame) const {
  const uint32_t f = (rcr() >> kRxfthShift) & 7;
  return f == 7 ? frame : std::min(frame, 16u << f);  // 7: DMA only once the whole frame is in
}

uint32_t Rtl8139::rx_burst(uint32_t frame) const {
  const uint32_t m = (rcr() >> kMxdmaShift) & 7;
  const uint32_t mx = m == 7 ? frame : 16u << m;  // 7: unlimited
  return std::max(1u, std::min(mx, rx_threshold(frame)));
}

void Rtl8139::rx_step() {
  const sc_time now = sc_core::sc_time_stamp();
  if (!started_) {
    started_ = true;
    pull_frame();
  }
  if (rx_dma_ && now >= rx_dma_->done) complete_rx();
  if (next_ && !next_armed_ && now >= next_ready_) {
    // The first bit is here: the FIFO threshold in force now decides when DMA may
    // start, and not before the previous frame's DMA is done.
    next_armed_ = true;
    next_ready_ =
        std::max(next_->first_bit +
                     wire_time(kPreambleBytes + rx_threshold(next_->frame_bytes), p_.wire_mbit_s),
                 rx_dma_free_);
  }
  if (next_ && next_armed_ && now >= next_ready_) {
    const Arrival a = *next_;
    next_.reset();
    receive(a);
    pull_frame();
  }
  sc_time wake = sc_core::sc_max_time();
  if (rx_dma_) wake = rx_dma_->done;
  if (next_) wake = std::min(wake, next_ready_);
  if (wake != sc_core::sc_max_time()) rx_ev_.notify(wake - now);
}

void Rtl8139::pull_frame() {
  if (!source_.has_next()) return;
  next_ = source_.next();
  next_ready_ = next_->first_bit;
  next_armed_ = false;
}

void Rtl8139::receive(const Arrival& a) {
  const uint32_t len = a.frame_bytes;
  if (!(cr_ & RE) || !accepts_unicast()) {
    stats_.frames_dropped_disabled++;
    return;
  }
  const uint32_t need = align4(4 + len);     // header + frame, next packet dword aligned
  if (ring_used() + need >= ring_bytes()) {  // never fill it exactly: full would read as empty
    isr_ |= RXOVW;
    LATSIM_DEBUG(nic, name(), "receive ring full: {}-byte frame dropped", len);
    mpc_ = (mpc_ + 1) & 0xffffff;
    stats_.frames_dropped_overflow++;
    update_irq();
    return;
  }
  // Bursts of `b` bytes, each no earlier than its last byte is off the wire and no
  // earlier than the previous burst has left the bus.
  const sc_time now = sc_core::sc_time_stamp();
  const uint32_t b = rx_burst(len), n = div_up(len, b);
  sc_time s = now;
  for (uint32_t k = 1; k < n; ++k) {
    const sc_time ready =
        a.first_bit + wire_time(kPreambleBytes + std::min((k + 1) * b, len), p_.wire_mbit_s);
    s = std::max(s + burst_tenure(b), ready);
  }
  const sc_time data_end = s + burst_tenure(len - (n - 1) * b);
  pci_.announce(pci::BurstTrain::spread(master_, now, data_end, n, burst_tenure(b), len, true));
  // Status and length are known only at the end: the header is written last.
  const sc_time done = data_end + burst_tenure(4);
  pci_.announce(pci::BurstTrain::spread(master_, data_end, done, 1, burst_tenure(4), 4, true));
  rx_dma_ = RxDma{cbr_, len, done};
  rx_dma_free_ = done;
}

void Rtl8139::ring_write(uint32_t offset, const uint8_t* data, uint32_t len) {
  const uint64_t base = rbstart_;
  const uint32_t ring = ring_bytes();
  if (rcr() & WRAP) {  // continue past the end into the driver's overflow area
    dram_.write(base + offset, data, len);
    return;
  }
  const uint32_t first = std::min(len, ring - offset);
  dram_.write(base + offset, data, first);
  if (first < len) dram_.write(base, data + first, len - first);
}

void Rtl8139::complete_rx() {
  const RxDma d = *rx_dma_;
  rx_dma_.reset();
  LATSIM_DEBUG(nic, name(), "{}-byte frame written to the receive ring", d.frame_bytes);
  std::vector<uint8_t> buf(4 + d.frame_bytes, 0);
  const uint32_t header = uint32_t(RX_ROK | RX_PAM) | (d.frame_bytes << 16);
  std::memcpy(buf.data(), &header, 4);  // little endian, as the driver reads it
  const std::array<uint8_t, 6> own = mac();
  std::copy(own.begin(), own.end(), buf.begin() + 4);
  std::copy(kPeerMac.begin(), kPeerMac.end(), buf.begin() + 10);
  buf[16] = 0x08;  // IPv4
  for (uint32_t i = 14; i + kFcsBytes < d.frame_bytes; ++i) buf[4 + i] = uint8_t(i);
  ring_write(d.offset, buf.data(), uint32_t(buf.size()));
  cbr_ = (d.offset + align4(4 + d.frame_bytes)) % ring_bytes();
  stats_.frames_received++;
  stats_.bytes_received += d.frame_bytes;
  stats_.ring_high_water = std::max(stats_.ring_high_water, ring_used());
  isr_ |= ROK;
  update_irq();
}

// ---- transmit ----

uint32_t Rtl8139::tsd_value(unsigned n) const {
  const sc_time now = sc_core::sc_time_stamp();
  const TxSlot& s = tx_[n];
  return s.tsd | (now >= s.own_at ? uint32_t(TSD_OWN) : 0u) |
         (now >= s.tok_at ? uint32_t(TSD_TOK) : 0u);
}

void Rtl8139::start_tx(unsigned n, uint32_t v) {
  const sc_time now = sc_core::sc_time_stamp();
  TxSlot& s = tx_[n];
  s.tsd = v & (TSD_SIZE | TSD_ERTXTH);  // writing the size with OWN = 0 hands it to the chip
  s.own_at = s.tok_at = sc_core::sc_max_time();
  if (!(cr_ & TE)) return;  // transmitter off: the descriptor waits forever
  const uint32_t size = v & TSD_SIZE;
  const uint32_t m = (tcr() >> kMxdmaShift) & 7;
  const uint32_t b = 16u << m;  // TCR MXDMA: 16 .. 2048 bytes
  const uint32_t nb = std::max(1u, div_up(size, b));
  // The FIFO must have room: the previous frame drains onto the wire as it is sent.
  sc_time start = std::max(now, tx_dma_free_);
  if (prev_tx_bytes_ + size > p_.tx_fifo_bytes)
    start = std::max(start, prev_wire_start_ +
                                wire_time(kPreambleBytes + prev_tx_bytes_ + size - p_.tx_fifo_bytes,
                                          p_.wire_mbit_s));
  auto after_bursts = [&](uint32_t k) {  // end of burst k (1-based) of this descriptor
    return start + burst_tenure(b) * double(k - 1) + burst_tenure(std::min(b, size - (k - 1) * b));
  };
  const sc_time dma_end = after_bursts(nb);
  // Transmission starts once the early-Tx threshold is in the FIFO (ERTXTH 0 = 8 bytes).
  const uint32_t ertxth = (v & TSD_ERTXTH) >> 16;
  const uint32_t thresh = std::max(1u, std::min(size, ertxth ? 32 * ertxth : 8u));
  const sc_time wire_start = std::max(after_bursts(div_up(thresh, b)), tx_wire_free_);
  const uint32_t frame = std::max(size, kMinPayloadBytes) + kFcsBytes;  // the chip appends FCS
  const sc_time wire_end = wire_start + frame_on_wire(frame, p_.wire_mbit_s);
  pci_.announce(pci::BurstTrain::spread(master_, start, dma_end, nb,
                                        burst_tenure(std::min(b, size)), size, false));
  s.own_at = dma_end;
  s.tok_at = wire_end;
  tx_dma_free_ = dma_end;
  tx_wire_free_ = wire_end + wire_time(kIfgBytes, p_.wire_mbit_s);
  prev_wire_start_ = wire_start;
  prev_tx_bytes_ = size;
  tx_pending_.push_back({wire_end, size});
  tx_ev_.notify(tx_pending_.front().first - now);
}

void Rtl8139::tx_step() {
  const sc_time now = sc_core::sc_time_stamp();
  while (!tx_pending_.empty() && tx_pending_.front().first <= now) {
    stats_.frames_sent++;
    stats_.bytes_sent += tx_pending_.front().second;
    tx_pending_.pop_front();
    isr_ |= TOK;
  }
  update_irq();
  if (!tx_pending_.empty()) tx_ev_.notify(tx_pending_.front().first - now);
}

}  // namespace latsim::net
