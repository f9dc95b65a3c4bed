// RTL8139C driven as Linux 2.6.9 8139too does (rtl8139_hw_start: reset, MAC, RE|TE,
// RxConfig = 32K ring | RxNoWrap | no Rx FIFO threshold | unlimited DMA burst,
// TxConfig = 1024-byte DMA burst, RBSTART, TSAD0-3, IMR). A frame arriving at a
// known time is written into the ring as one burst train no earlier than it is off
// the wire, then its 4-byte header; ROK and INTA# follow. Ring wrap, overflow
// (RXOVW, MPC), ISR write-1-to-clear, IMR masking, and transmit: TSD write -> DMA
// read train -> early-Tx threshold -> wire -> TOK.
#include "models/net/ethernet.h"
#include "models/net/rtl8139.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <functional>
#include <vector>

namespace latsim::net {
namespace {

using latsim::testing::fresh_simulation;
using latsim::testing::TestInitiator;
using R = Rtl8139;

constexpr uint64_t kClkPs = 30003;  // 33.33 MHz PCI clock
constexpr uint16_t kIoBase = 0xe000;
constexpr uint32_t kRing = 0x00400000;
constexpr uint32_t kTxBufs = 0x00500000;
constexpr unsigned kIrqPin = 11;
sc_time clocks(uint64_t n) { return ps(n * kClkPs); }
sc_time bytes_on_wire(uint64_t n) { return sc_time(double(n * 80), SC_NS); }  // 100 Mbit/s
sc_time tenure(uint32_t bytes) { return clocks(4 + (bytes + 3) / 4); }        // one PCI burst

// 8139too's constants
constexpr uint32_t kRxConfig32K = (7u << R::kRxfthShift) | (2u << R::kRblenShift) |
                                  (7u << R::kMxdmaShift) | R::WRAP | R::AB | R::APM;
constexpr uint32_t kTxConfig =
    (3u << 24) | (6u << R::kMxdmaShift) | (8u << 4);  // IFG96, 1024, retry
constexpr uint16_t kIntrMask = 0xc07f;
constexpr uint32_t kTxFlag = 8u << 16;  // ERTXTH: TX_FIFO_THRESH 256 bytes

struct TrainLog : pci::MasterTrafficListener {
  std::vector<pci::BurstTrain> trains;
  std::vector<sc_time> announced_at;
  void master_traffic(const pci::BurstTrain& t) override {
    trains.push_back(t);
    announced_at.push_back(sc_core::sc_time_stamp());
  }
};

struct IrqRecorder : irq::IrqSink {
  struct Edge {
    sc_time at;
    unsigned pin;
    bool level;
  };
  std::vector<Edge> edges;
  void irq_set(unsigned pin, bool level) override {
    edges.push_back({sc_core::sc_time_stamp(), pin, level});
  }
};

using latsim::test::Script;

Rtl8139Params one_frame_at(sc_time t, uint32_t bytes, uint64_t count = 1, double fps = 5000) {
  Rtl8139Params p;
  p.rx.kind = ArrivalKind::Constant;
  p.rx.start = t;
  p.rx.frame_bytes = {bytes};
  p.rx.max_frames = count;
  p.rx.frames_per_s = fps;
  return p;
}

struct Rig {
  pci::PciBus pci{"pci"};
  chipset::Dram dram{64ull << 20};
  Rtl8139 nic;
  TestInitiator host{"host"};
  TrainLog log;
  IrqRecorder irq;
  uint32_t cur_rx = 0;  // the driver's ring position

  explicit Rig(const Rtl8139Params& p) : nic("nic", p, dram, pci) {
    host.socket.bind(pci.host_socket);
    pci.target_socket.bind(nic.socket);
    pci.map(io_addr(kIoBase), 256, 0, "rtl8139", 2);
    pci.add_listener(log);
    nic.inta.connect(irq, kIrqPin);
  }

  // rtl8139_hw_start, register by register (no time passes: direct calls).
  void linux_open(uint32_t rx_config = kRxConfig32K) {
    nic.write(R::CR, 1, R::RST);
    nic.write(R::CR9346, 1, 0xc0);  // unlock
    nic.write(R::CR, 1, R::RE | R::TE);
    nic.write(R::RCR, 4, rx_config);
    nic.write(R::TCR, 4, kTxConfig);
    nic.write(R::CR9346, 1, 0x00);  // lock
    nic.write(R::RBSTART, 4, kRing);
    for (unsigned i = 0; i < 4; ++i) nic.write(R::TSAD0 + 4 * i, 4, kTxBufs + 2048 * i);
    nic.write(R::MPC, 4, 0);
    nic.write(R::IMR, 2, kIntrMask);
    cur_rx = 0;
  }
  // rtl8139_rx for one packet: header from the ring, then CAPR = cur_rx - 16.
  uint32_t linux_rx_one() {
    const uint32_t ring = nic.ring_bytes();
    const uint32_t header = dram.read32(kRing + cur_rx % ring);
    cur_rx = (cur_rx + (header >> 16) + 4 + 3) & ~3u;
    nic.write(R::CAPR, 2, uint16_t(cur_rx - 16));
    return header;
  }
  uint16_t isr() { return uint16_t(nic.read(R::ISR, 2)); }
};

TEST(Rtl8139Rx, FrameIsOneTrainAfterItIsOffTheWireThenHeaderRokAndIrq) {
  fresh_simulation();
  const sc_time t0 = sc_time(200, SC_US);
  Rig r(one_frame_at(t0, 1000));
  uint8_t cr_mid = 0;
  Script s("s", [&] {
    sc_core::wait(sc_time(10, SC_US));
    r.linux_open();
    sc_core::wait(t0 + sc_time(50, SC_US) - sc_core::sc_time_stamp());  // frame still arriving
    cr_mid = uint8_t(r.nic.read(R::CR, 1));
  });
  sc_core::sc_start();

  // 8139too's RxConfig: no FIFO threshold, so the DMA starts once preamble and all
  // 1000 bytes are in; unlimited burst: one burst of 250 data phases.
  ASSERT_EQ(r.log.trains.size(), 2u);
  const pci::BurstTrain& data = r.log.trains[0];
  const sc_time off_wire = t0 + bytes_on_wire(8 + 1000);
  EXPECT_EQ(data.master, 1);
  EXPECT_EQ(data.start, off_wire);
  EXPECT_EQ(data.end, off_wire + tenure(1000));
  EXPECT_EQ(data.tenure, tenure(1000));
  EXPECT_EQ(data.period, tenure(1000));
  EXPECT_EQ(data.bytes, 1000u);
  EXPECT_TRUE(data.to_memory);
  EXPECT_EQ(r.log.announced_at[0], off_wire);
  // The header (status, length) is written last, after the data.
  const pci::BurstTrain& header = r.log.trains[1];
  EXPECT_EQ(header.start, data.end);
  EXPECT_EQ(header.end, data.end + clocks(5));
  EXPECT_EQ(header.bytes, 4u);
  const sc_time done = data.end + clocks(5);

  ASSERT_EQ(r.irq.edges.size(), 1u);
  EXPECT_EQ(r.irq.edges[0].at, done);
  EXPECT_EQ(r.irq.edges[0].pin, kIrqPin);
  EXPECT_TRUE(r.irq.edges[0].level);
  EXPECT_EQ(r.isr(), R::ROK);
  EXPECT_EQ(cr_mid, R::RE | R::TE | R::BUFE);  // nothing in the ring yet
  EXPECT_EQ(r.nic.read(R::CR, 1), uint32_t(R::RE | R::TE));

  // Ring contents: header, then the frame (our MAC first), at RBSTART.
  EXPECT_EQ(r.dram.read32(kRing), uint32_t(R::RX_ROK | R::RX_PAM) | (1000u << 16));
  uint8_t mac[6];
  r.dram.read(kRing + 4, mac, 6);
  EXPECT_EQ(std::vector<uint8_t>(mac, mac + 6),
            std::vector<uint8_t>({0x00, 0xe0, 0x4c, 0x39, 0x81, 0x39}));
  uint8_t b100 = 0;
  r.dram.read(kRing + 4 + 100, &b100, 1);
  EXPECT_EQ(b100, 100);
  EXPECT_EQ(r.nic.read(R::CBR, 2), 1004u);
  EXPECT_EQ(r.nic.ring_used(), 1004u);

  const Rtl8139Stats& st = r.nic.stats();
  EXPECT_EQ(st.frames_received, 1u);
  EXPECT_EQ(st.bytes_received, 1000u);
  EXPECT_EQ(st.ring_high_water, 1004u);
  EXPECT_EQ(st.irqs, 1u);

  // The driver consumes it: CAPR = 1004 - 16, the ring reads empty again.
  EXPECT_EQ(r.linux_rx_one() >> 16, 1000u);
  EXPECT_EQ(r.nic.read(R::CAPR, 2), 1004u - 16);
  EXPECT_EQ(r.nic.read(R::CR, 1), uint32_t(R::RE | R::TE | R::BUFE));
}

TEST(Rtl8139Rx, WithAFifoThresholdBurstsFollowTheWire) {
  fresh_simulation();
  const sc_time t0 = sc_time(100, SC_US);
  Rig r(one_frame_at(t0, 256));
  Script s("s", [&] {
    sc_core::wait(sc_time(10, SC_US));
    // RXFTH 32 bytes, MXDMA 32 bytes: the chip writes 32 bytes as soon as it has them
    r.linux_open((1u << R::kRxfthShift) | (1u << R::kMxdmaShift) | (2u << R::kRblenShift) | R::APM);
  });
  sc_core::sc_start();
  ASSERT_EQ(r.log.trains.size(), 2u);
  const pci::BurstTrain& data = r.log.trains[0];
  EXPECT_EQ(data.start, t0 + bytes_on_wire(8 + 32));  // the first 32 bytes are in
  // Each 32-byte burst (12 clocks) is far quicker than 32 bytes on the wire (2.56 us):
  // the last burst starts when the last byte is in and takes its tenure.
  EXPECT_EQ(data.end, t0 + bytes_on_wire(8 + 256) + tenure(32));
  EXPECT_EQ(data.period, ps(to_ps(data.end - data.start) / 8));  // 8 bursts evenly spread
  EXPECT_EQ(data.tenure, tenure(32));
  EXPECT_EQ(r.log.trains[1].start, data.end);
  ASSERT_EQ(r.irq.edges.size(), 1u);
  EXPECT_EQ(r.irq.edges[0].at, data.end + clocks(5));
}

TEST(Rtl8139Rx, RingWrapsToItsStartAndTheHeaderPositionFollowsTheDriver) {
  fresh_simulation();
  const sc_time t0 = sc_time(100, SC_US);
  Rig r(one_frame_at(t0, 1518, 7));  // every 200 us
  std::vector<uint32_t> headers, offsets;
  Script s("s", [&] {
    sc_core::wait(sc_time(10, SC_US));
    r.linux_open((7u << R::kRxfthShift) | (7u << R::kMxdmaShift) | R::APM);  // 8K ring, WRAP = 0
    for (int i = 0; i < 7; ++i) {
      while (!r.nic.inta.level()) sc_core::wait(sc_time(1, SC_US));
      offsets.push_back(r.cur_rx % r.nic.ring_bytes());
      headers.push_back(r.linux_rx_one());
      r.nic.write(R::ISR, 2, R::ROK);
    }
  });
  sc_core::sc_start();
  ASSERT_EQ(headers.size(), 7u);
  EXPECT_EQ(r.nic.ring_bytes(), 8192u);
  // 1518 + 4 bytes, dword aligned = 1524 per frame: the sixth starts at 7620 and wraps.
  EXPECT_EQ(offsets, (std::vector<uint32_t>{0, 1524, 3048, 4572, 6096, 7620, 952}));
  for (uint32_t h : headers) EXPECT_EQ(h, uint32_t(R::RX_ROK | R::RX_PAM) | (1518u << 16));
  // Frame byte i of the sixth frame sits at ring offset (7624 + i) mod 8192: byte 600
  // wrapped to offset 32 (where the first frame's byte 28 was).
  uint8_t b = 0;
  r.dram.read(kRing + 32, &b, 1);
  EXPECT_EQ(b, uint8_t(600));
  EXPECT_EQ(r.nic.read(R::CBR, 2), (952u + 1524) % 8192);
  EXPECT_EQ(r.nic.stats().frames_received, 7u);
  EXPECT_EQ(r.nic.stats().ring_high_water, 1524u);  // the driver kept up
}

TEST(Rtl8139Rx, NoWrapModeWritesPastTheRingEnd) {
  fresh_simulation();
  Rig r(one_frame_at(sc_time(100, SC_US), 1518, 6));
  Script s("s", [&] {
    sc_core::wait(sc_time(10, SC_US));
    r.linux_open((7u << R::kRxfthShift) | (7u << R::kMxdmaShift) | R::WRAP | R::APM);
    for (int i = 0; i < 6; ++i) {
      while (!r.nic.inta.level()) sc_core::wait(sc_time(1, SC_US));
      r.linux_rx_one();
      r.nic.write(R::ISR, 2, R::ROK);
    }
  });
  sc_core::sc_start();
  uint8_t past = 0, start = 0;
  r.dram.read(kRing + 8192 + 32, &past, 1);  // RxNoWrap: into the driver's spare 1.5 KiB
  r.dram.read(kRing + 32, &start, 1);
  EXPECT_EQ(past, uint8_t(600));
  EXPECT_EQ(start, uint8_t(28));  // the first frame's byte is untouched
  EXPECT_EQ(r.nic.read(R::CBR, 2), 952u);
}

TEST(Rtl8139Rx, FullRingDropsWithRxovwAndMissedCountUntilTheDriverFreesIt) {
  fresh_simulation();
  const sc_time t0 = sc_time(100, SC_US);
  Rig r(one_frame_at(t0, 1518, 10));  // every 200 us
  std::vector<sc_time> rxovw_seen;
  Script s("s", [&] {
    sc_core::wait(sc_time(10, SC_US));
    r.linux_open((7u << R::kRxfthShift) | (7u << R::kMxdmaShift) | R::APM);  // 8K ring
    // The driver is stuck (a long non-preemptible section) until frame 8 is off the
    // wire (first bit at t0 + 1.4 ms, complete 122 us later).
    sc_core::wait(t0 + sc_time(1600, SC_US) - sc_core::sc_time_stamp());
    for (int i = 0; i < 5; ++i) r.linux_rx_one();
    r.nic.write(R::ISR, 2, R::ROK | R::RXOVW);
  });
  sc_core::sc_start();
  const Rtl8139Stats& st = r.nic.stats();
  // Five 1524-byte slots fit in 8192 (7620 used); the sixth would not: frames 6, 7
  // and 8 are dropped; 9 and 10 come after the driver caught up.
  EXPECT_EQ(st.frames_received, 7u);
  EXPECT_EQ(st.frames_dropped_overflow, 3u);
  EXPECT_EQ(r.nic.read(R::MPC, 4), 3u);
  EXPECT_EQ(st.ring_high_water, 7620u);
  // Dropped frames never reach the bus: 7 frames x (data + header) trains.
  EXPECT_EQ(r.log.trains.size(), 14u);
  // The first overflow raised INTA# (it was still up from ROK: no new edge), and the
  // ring state after: frames 9 and 10 at 7620 (wrapping) and 952.
  EXPECT_EQ(r.isr() & R::ROK, R::ROK);
  EXPECT_EQ(r.nic.read(R::CBR, 2), (7620u + 2 * 1524) % 8192);
  r.nic.write(R::MPC, 4, 0);
  EXPECT_EQ(r.nic.read(R::MPC, 4), 0u);
}

TEST(Rtl8139Rx, ReceiverOffIgnoresTheCable) {
  fresh_simulation();
  Rig r(one_frame_at(sc_time(100, SC_US), 64, 3));
  sc_core::sc_start();  // never opened: CR.RE = 0
  EXPECT_EQ(r.nic.stats().frames_dropped_disabled, 3u);
  EXPECT_EQ(r.nic.stats().frames_received, 0u);
  EXPECT_TRUE(r.log.trains.empty());
  EXPECT_TRUE(r.irq.edges.empty());
}

TEST(Rtl8139Irq, IsrIsWriteOneToClearAndImrMasksTheLine) {
  fresh_simulation();
  const sc_time t0 = sc_time(100, SC_US);
  Rig r(one_frame_at(t0, 64));
  sc_time unmask_at, ack_at;
  uint16_t isr_masked = 0, isr_after_tok = 0, isr_after_ack = 0;
  Script s("s", [&] {
    sc_core::wait(sc_time(10, SC_US));
    r.linux_open();
    r.nic.write(R::IMR, 2, 0);  // masked: status still collects
    sc_core::wait(sc_time(200, SC_US));
    isr_masked = r.isr();
    unmask_at = sc_core::sc_time_stamp();
    r.nic.write(R::IMR, 2, R::ROK);  // a pending, now unmasked cause raises INTA# at once
    sc_core::wait(sc_time(5, SC_US));
    r.nic.write(R::ISR, 2, R::TOK | R::RER);  // writing 1s to clear bits not set: no change
    isr_after_tok = r.isr();
    sc_core::wait(sc_time(5, SC_US));
    ack_at = sc_core::sc_time_stamp();
    r.nic.write(R::ISR, 1, R::ROK);  // byte write to the low half, as some drivers do
    isr_after_ack = r.isr();
  });
  sc_core::sc_start();
  EXPECT_EQ(isr_masked, R::ROK);
  EXPECT_EQ(isr_after_tok, R::ROK);
  EXPECT_EQ(isr_after_ack, 0);
  ASSERT_EQ(r.irq.edges.size(), 2u);
  EXPECT_EQ(r.irq.edges[0].at, unmask_at);
  EXPECT_TRUE(r.irq.edges[0].level);
  EXPECT_EQ(r.irq.edges[1].at, ack_at);
  EXPECT_FALSE(r.irq.edges[1].level);
}

TEST(Rtl8139Tx, TsdWriteStartsADmaReadTrainThenTheWireThenTok) {
  fresh_simulation();
  Rig r(Rtl8139Params{});
  const sc_time t1 = sc_time(50, SC_US);
  std::vector<uint32_t> tsd0;
  uint32_t summary = 0;
  sc_time t2;
  Script s("s", [&] {
    sc_core::wait(sc_time(10, SC_US));
    r.linux_open();
    sc_core::wait(t1 - sc_core::sc_time_stamp());
    r.nic.write(R::TSD0, 4, kTxFlag | 1000);  // rtl8139_start_xmit, descriptor 0
    tsd0.push_back(r.nic.read(R::TSD0, 4));
    sc_core::wait(sc_time(1, SC_US));
    t2 = sc_core::sc_time_stamp();
    r.nic.write(R::TSD0 + 4, 4, kTxFlag | 1500);  // descriptor 1 right behind it
    sc_core::wait(sc_time(20, SC_US));
    tsd0.push_back(r.nic.read(R::TSD0, 4));  // DMA done, still on the wire
    sc_core::wait(sc_time(200, SC_US));
    tsd0.push_back(r.nic.read(R::TSD0, 4));
    summary = r.nic.read(R::TSAD, 2);
  });
  sc_core::sc_start();

  ASSERT_EQ(r.log.trains.size(), 2u);
  // Descriptor 0: 1000 bytes in one 1024-byte DMA burst (TCR MXDMA = 6).
  const pci::BurstTrain& d0 = r.log.trains[0];
  EXPECT_EQ(d0.start, t1);
  EXPECT_EQ(d0.end, t1 + tenure(1000));
  EXPECT_EQ(d0.bytes, 1000u);
  EXPECT_FALSE(d0.to_memory);
  // The 256-byte early-Tx threshold is reached with that burst; then preamble, 1000
  // bytes and the FCS the chip appends at 80 ns a byte.
  const sc_time wire0 = d0.end;
  const sc_time tok0 = wire0 + bytes_on_wire(8 + 1000 + 4);
  // Descriptor 1: 1500 bytes do not fit in the 2 KiB FIFO beside frame 0's 1000
  // until 452 of those have gone out; two bursts (1024 + 476); its wire time waits
  // for frame 0 and the inter-frame gap.
  const pci::BurstTrain& d1 = r.log.trains[1];
  const sc_time room = wire0 + bytes_on_wire(8 + 1000 + 1500 - 2048);
  ASSERT_GT(room, t2);
  EXPECT_EQ(d1.start, room);
  EXPECT_EQ(d1.end, room + tenure(1024) + tenure(476));
  EXPECT_EQ(d1.period, ps(to_ps(d1.end - d1.start) / 2));
  const sc_time wire1 = std::max(room + tenure(1024), tok0 + bytes_on_wire(12));
  EXPECT_EQ(wire1, tok0 + bytes_on_wire(12));
  const sc_time tok1 = wire1 + bytes_on_wire(8 + 1500 + 4);

  ASSERT_EQ(r.irq.edges.size(), 1u);  // TOK stays pending (no driver ack): one edge
  EXPECT_EQ(r.irq.edges[0].at, tok0);
  EXPECT_EQ(r.isr(), R::TOK);
  EXPECT_EQ(r.nic.stats().frames_sent, 2u);
  EXPECT_EQ(r.nic.stats().bytes_sent, 2500u);

  ASSERT_EQ(tsd0.size(), 3u);
  EXPECT_EQ(tsd0[0], kTxFlag | 1000);  // OWN cleared: the chip has it
  EXPECT_EQ(tsd0[1], kTxFlag | 1000 | R::TSD_OWN);
  EXPECT_EQ(tsd0[2], kTxFlag | 1000 | R::TSD_OWN | R::TSD_TOK);
  EXPECT_EQ(summary, 0x3000u | 0xfu);  // TOK0, TOK1; OWN for all four
  EXPECT_LT(tok1, sc_time(300, SC_US));
  EXPECT_EQ(r.nic.read(R::TSD0 + 4, 4), kTxFlag | 1500 | R::TSD_OWN | R::TSD_TOK);
}

TEST(Rtl8139Tx, TransmitterOffKeepsTheDescriptor) {
  fresh_simulation();
  Rig r(Rtl8139Params{});
  r.nic.write(R::TSD0, 4, 600);
  sc_core::sc_start(sc_time(1, SC_MS));
  EXPECT_EQ(r.nic.read(R::TSD0, 4), 600u);  // OWN never comes back
  EXPECT_TRUE(r.log.trains.empty());
}

TEST(Rtl8139Registers, ResetValuesAndAccessesThroughThePciSocket) {
  fresh_simulation();
  Rtl8139Params p;
  p.reset_time = sc_time(2, SC_US);
  Rig r(p);
  uint32_t idr_lo = 0, idr_hi = 0, tcr = 0, rcr = 0, bmsr = 0;
  uint8_t cr_during = 0, cr_after = 0, msr = 0;
  uint16_t capr = 0;
  Script s("s", [&] {
    sc_time d = SC_ZERO_TIME;
    sc_core::wait(sc_time(10, SC_US));
    r.host.write8(io_addr(kIoBase + R::CR), R::RST, d);
    sc_core::wait(d);
    d = SC_ZERO_TIME;
    cr_during = r.host.read8(io_addr(kIoBase + R::CR), d);
    sc_core::wait(sc_time(3, SC_US));
    cr_after = r.host.read8(io_addr(kIoBase + R::CR), d);
    idr_lo = r.host.read32(io_addr(kIoBase + R::IDR0), d);
    idr_hi = r.host.read32(io_addr(kIoBase + R::IDR0 + 4), d);
    r.host.write32(io_addr(kIoBase + R::TCR), kTxConfig, d);
    tcr = r.host.read32(io_addr(kIoBase + R::TCR), d);
    r.host.write32(io_addr(kIoBase + R::RCR), kRxConfig32K, d);
    rcr = r.host.read32(io_addr(kIoBase + R::RCR), d);
    msr = r.host.read8(io_addr(kIoBase + R::MSR), d);
    uint16_t v = 0;
    r.host.access(tlm::TLM_READ_COMMAND, io_addr(kIoBase + R::BMSR), &v, 2, d);
    bmsr = v;
    r.host.access(tlm::TLM_READ_COMMAND, io_addr(kIoBase + R::CAPR), &capr, 2, d);
  });
  sc_core::sc_start();
  EXPECT_EQ(cr_during, R::RST | R::BUFE);
  EXPECT_EQ(cr_after, R::BUFE);
  EXPECT_EQ(idr_lo, 0x39'4c'e0'00u);
  EXPECT_EQ(idr_hi & 0xffff, 0x3981u);
  EXPECT_EQ(tcr, kTxConfig | R::kHwVerId8139C);  // 8139too identifies an RTL8139C
  EXPECT_EQ(rcr, kRxConfig32K);
  EXPECT_EQ(r.nic.ring_bytes(), 32768u);
  EXPECT_EQ(msr, 0u);  // link up, 100 Mbit/s
  EXPECT_EQ(bmsr & 0x0004, 0x0004u);
  EXPECT_EQ(capr, R::kCaprReset);
}

}  // namespace
}  // namespace latsim::net
