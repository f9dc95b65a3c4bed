// ES1371 driven as Linux 2.6.9 sound/pci/ens1370.c does: the sample-rate converter
// through ES_REG_1371_SMPRATE with snd_es1371_wait_src_ready/src_read/src_write
// (port reads through the PCI bus), playback prepare (MEM_PAGE, FRAME, SIZE,
// SERIAL, COUNT), trigger (CONTROL DACx_EN), and the interrupt handler's
// acknowledge (clear and set Px_INT_EN). Times are exact: AC-link frames of 256
// BIT_CLKs at 12.288 MHz, SRC BUSY until a host window busy_frames frames on,
// period interrupts when the converter has taken COUNT + 1 samples at the rate in
// the SRC RAM, FIFO refills as 8-dword PCI reads.
#include "models/sound/es1371.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <functional>
#include <vector>

namespace latsim::sound {
namespace {

using latsim::testing::fresh_simulation;
using latsim::testing::TestInitiator;
using E = Es1371;
using Src = SampleRateConverter;

constexpr uint64_t kClkPs = 30003;
constexpr uint16_t kIoBase = 0xd800;
constexpr unsigned kIrqPin = 10;  // the reference machine's ES1371 IRQ
constexpr uint32_t kDmaBuf = 0x00600000;
constexpr uint32_t POLL_COUNT = 0xa000;  // ens1370.c

// AC-link frame k starts at k * 256 / 12.288 MHz (20.833... us), rounded down to 1 ps.
sc_time frame_start(uint64_t k) {
  return ps(uint64_t((unsigned __int128)k * 256 * 1000000000000ull / 12288000));
}
uint64_t frame_after(sc_time t) {  // first frame start strictly after t
  uint64_t k = 0;
  while (frame_start(k) <= t) k += 1;
  return k;
}
uint32_t linux_freq(uint32_t rate) { return ((rate << 15) + 1500) / 3000; }  // dac*_rate
// Frame start at which `s` samples have been taken, playing from frame k0 at `freq`.
sc_time sample_time(uint64_t k0, uint32_t freq, uint64_t s) {
  const uint64_t m = ((s << 19) + freq - 1) / freq;
  return frame_start(k0 + m - 1);
}

struct TrainLog : pci::MasterTrafficListener {
  std::vector<pci::BurstTrain> trains;
  void master_traffic(const pci::BurstTrain& t) override { trains.push_back(t); }
};

struct IrqRecorder : irq::IrqSink {
  std::vector<std::pair<sc_time, bool>> edges;
  void irq_set(unsigned, bool level) override {
    edges.push_back({sc_core::sc_time_stamp(), level});
  }
};

using latsim::test::Script;

struct Rig {
  pci::PciBus pci{"pci"};
  Es1371 snd;
  TestInitiator host{"host"};
  TrainLog log;
  IrqRecorder irq;
  uint32_t ctrl = 0, sctrl = 0;  // the driver's copies
  uint64_t port_reads = 0;

  explicit Rig(const Es1371Params& p = {}) : snd("es1371", p, pci) {
    host.socket.bind(pci.host_socket);
    pci.target_socket.bind(snd.socket);
    pci.map(io_addr(kIoBase), 64, 0, "es1371", 2);
    pci.add_listener(log);
    snd.inta.connect(irq, kIrqPin);
  }

  // Port accesses through the bus, each waited out (3 + 2 PCI clocks).
  uint32_t inl(uint8_t reg) {
    sc_time d = SC_ZERO_TIME;
    const uint32_t v = host.read32(io_addr(kIoBase + reg), d);
    sc_core::wait(d);
    port_reads++;
    return v;
  }
  void outl(uint32_t v, uint8_t reg) {
    sc_time d = SC_ZERO_TIME;
    host.write32(io_addr(kIoBase + reg), v, d);
    sc_core::wait(d);
  }

  // ens1370.c, CHIP1371
  uint32_t wait_src_ready() {
    for (uint32_t t = 0; t < POLL_COUNT; t++) {
      const uint32_t r = inl(E::ES_REG_1371_SMPRATE);
      if ((r & Src::SRC_RAM_BUSY) == 0) return r;
    }
    ADD_FAILURE() << "wait source ready timeout";
    return 0;
  }
  static constexpr uint32_t kKeep = Src::SRC_DISABLE | Src::DIS_P1 | Src::DIS_P2 | Src::DIS_R1;
  uint32_t src_read(uint8_t reg) {
    const uint32_t orig = wait_src_ready();
    uint32_t temp = orig;
    outl((temp & kKeep) | (uint32_t(reg) << 25) | 0x10000, E::ES_REG_1371_SMPRATE);
    temp = wait_src_ready();
    if ((temp & 0x00870000) != 0x00010000) {  // wait for the right state
      for (uint32_t i = 0; i < POLL_COUNT; i++) {
        temp = inl(E::ES_REG_1371_SMPRATE);
        if ((temp & 0x00870000) == 0x00010000) break;
      }
    }
    outl((orig & kKeep) | (uint32_t(reg) << 25), E::ES_REG_1371_SMPRATE);  // hide the state bits
    return temp;
  }
  void src_write(uint8_t reg, uint16_t data) {
    const uint32_t r = (wait_src_ready() & kKeep) | (uint32_t(reg) << 25) | data;
    outl(r | Src::SRC_RAM_WE, E::ES_REG_1371_SMPRATE);
  }
  void dac_rate(uint8_t base, uint32_t dis, uint32_t rate) {  // snd_es1371_dac{1,2}_rate
    const uint32_t freq = linux_freq(rate);
    const uint32_t others = kKeep & ~dis;
    outl((wait_src_ready() & others) | dis, E::ES_REG_1371_SMPRATE);
    src_write(base + Src::SMPREG_INT_REGS,
              (src_read(base + Src::SMPREG_INT_REGS) & 0x00ff) | ((freq >> 5) & 0xfc00));
    src_write(base + Src::SMPREG_VFREQ_FRAC, freq & 0x7fff);
    outl(wait_src_ready() & others, E::ES_REG_1371_SMPRATE);
  }
  // snd_ensoniq_playback2_prepare + trigger(START); direct register writes, no time.
  void playback2_prepare(uint32_t buffer_bytes, uint32_t period_bytes, unsigned mode) {
    static const unsigned shift[] = {0, 1, 1, 2};
    ctrl &= ~E::ES_DAC2_EN;
    snd.write(E::ES_REG_CONTROL, 4, ctrl);
    snd.write(E::ES_REG_MEM_PAGE, 4, E::ES_PAGE_DAC);
    snd.write(E::ES_REG_DAC2_FRAME, 4, kDmaBuf);
    snd.write(E::ES_REG_DAC2_SIZE, 4, (buffer_bytes >> 2) - 1);
    sctrl &= ~(E::ES_P2_LOOP_SEL | E::ES_P2_PAUSE | (3u << E::kP2ModeShift));
    sctrl |= E::ES_P2_INT_EN | (mode << E::kP2ModeShift) | ((mode & 2 ? 2u : 1u) << 19);
    snd.write(E::ES_REG_SERIAL, 4, sctrl);
    snd.write(E::ES_REG_DAC2_COUNT, 4, (period_bytes >> shift[mode]) - 1);
  }
  void trigger(uint32_t enable, bool start) {
    ctrl = start ? ctrl | enable : ctrl & ~enable;
    snd.write(E::ES_REG_CONTROL, 4, ctrl);
  }
  // snd_audiopci_interrupt: read STATUS, clear and restore the INT_EN bits.
  uint32_t interrupt() {
    const uint32_t status = snd.read(E::ES_REG_STATUS, 4);
    uint32_t s = sctrl;
    if (status & E::ES_DAC1) s &= ~E::ES_P1_INT_EN;
    if (status & E::ES_DAC2) s &= ~E::ES_P2_INT_EN;
    snd.write(E::ES_REG_SERIAL, 4, s);
    snd.write(E::ES_REG_SERIAL, 4, sctrl);
    return status;
  }
};

// ---- sample-rate converter ----

// A converter that holds the RAM 27 frame starts per request (the long wait of O8, had
// every request waited it).
Es1371Params slow_src() {
  Es1371Params p;
  p.src.busy_frames = 27;
  return p;
}

TEST(Es1371Src, BusyLastsUntilTheHostWindowBusyFramesFramesLater) {
  fresh_simulation();
  Rig r(slow_src());
  SampleRateConverter& src = r.snd.src();
  const sc_time t = sc_time(1007, SC_US);  // 48.34 frames in: mid-frame
  const uint64_t k = frame_after(t);
  ASSERT_EQ(k, 49u);
  const sc_time served = frame_start(k + 27 - 1);
  Script s("s", [&] {
    sc_core::wait(t);
    src.write((0x75u << 25) | Src::SRC_RAM_WE | 0xbeef, sc_core::sc_time_stamp());
    EXPECT_TRUE(src.read(sc_core::sc_time_stamp()) & Src::SRC_RAM_BUSY);
    sc_core::wait(served - sc_core::sc_time_stamp() - sc_time(1, SC_PS));
    EXPECT_TRUE(src.busy(sc_core::sc_time_stamp()));
    sc_core::wait(sc_time(1, SC_PS));
    const uint32_t v = src.read(sc_core::sc_time_stamp());
    EXPECT_EQ(v & Src::SRC_RAM_BUSY, 0u);
    EXPECT_EQ(v & 0x00070000, 0x00010000u);  // in the host window
    EXPECT_EQ(src.ram(0x75, sc_core::sc_time_stamp()), 0xbeef);
    sc_core::wait(sc_time(1303, SC_NS));  // 16 BIT_CLKs = 1302.08 ns: window over
    EXPECT_EQ(src.read(sc_core::sc_time_stamp()) & 0x00870000, 0u);
  });
  sc_core::sc_start();
  // 27 frame starts after a request 0.34 frames into frame 48: 26.66 frames.
  EXPECT_EQ(served, sc_time(1562500, SC_NS));
  EXPECT_EQ(src.stats().requests, 1u);
  EXPECT_EQ(src.stats().busy, served - t);
}

TEST(Es1371Src, BusyTimeFollowsTheMechanismsParameters) {
  fresh_simulation();
  const sc_time t = sc_time(100, SC_US);
  AcLinkClock fast;
  fast.bit_clk_hz = 24576000;  // a link twice as fast halves each frame
  SrcParams four;
  four.busy_frames = 4;
  SampleRateConverter src(fast, four);
  src.write(0, t);
  // Frames of 10.4167 us: 100 us is in frame 9, the request is served at frame 13.
  EXPECT_EQ(src.served_at(),
            ps(uint64_t((unsigned __int128)13 * 256 * 1000000000000ull / 24576000)));
  const sc_time frame = sc_time(256.0 / 24.576, SC_US);
  EXPECT_GT(src.served_at() - t, frame * 3.0);
  EXPECT_LE(src.served_at() - t, frame * 4.0);

  AcLinkClock link;
  SrcParams off;
  off.busy_frames = 0;  // switched off: the RAM answers at once
  SampleRateConverter instant(link, off);
  instant.write((0x10u << 25) | Src::SRC_RAM_WE | 0x1234, t);
  EXPECT_FALSE(instant.busy(t));
  EXPECT_EQ(instant.ram(0x10, t), 0x1234);
}

// The default, from the author's traces of snd_es1371_dac1_rate (CAL O8): five of its
// six SRC waits took 1-16 us, a request served at the next frame start.
TEST(Es1371Src, ByDefaultARequestIsServedAtTheNextFrameStart) {
  fresh_simulation();
  Rig r;
  SampleRateConverter& src = r.snd.src();
  const sc_time t = sc_time(1007, SC_US);  // 48.34 frames in
  src.write((0x75u << 25) | Src::SRC_RAM_WE | 0xbeef, t);
  EXPECT_TRUE(src.busy(t));
  EXPECT_EQ(src.served_at(), frame_start(49));
  EXPECT_NEAR((src.served_at() - t).to_seconds() * 1e6, 13.833, 0.001);
  EXPECT_FALSE(src.busy(frame_start(49)));
  EXPECT_EQ(src.ram(0x75, frame_start(49)), 0xbeef);
}

TEST(Es1371Src, LinuxSrcWriteAndReadPollUntilTheHostWindow) {
  fresh_simulation();
  Rig r(slow_src());
  sc_time t_write, t_read_start, t_read_end, cycle;
  uint32_t got = 0;
  uint64_t polls_read = 0;
  Script s("s", [&] {
    sc_core::wait(sc_time(90, SC_US));
    const sc_time a = sc_core::sc_time_stamp();
    r.inl(E::ES_REG_STATUS);  // one port access, as the bus times it now
    cycle = sc_core::sc_time_stamp() - a;
    sc_core::wait(sc_time(100, SC_US) - sc_core::sc_time_stamp());
    t_write = sc_core::sc_time_stamp();
    r.src_write(0x75, 0x1234);
    t_read_start = sc_core::sc_time_stamp();
    const uint64_t before = r.port_reads;
    got = r.src_read(0x75);
    polls_read = r.port_reads - before;
    t_read_end = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  EXPECT_EQ(cycle, ps(5 * kClkPs));  // 3 + 2 PCI clocks on an idle bus
  // src_write: not busy, one inl, then the outl that starts the request.
  const sc_time write_req = t_write + cycle;
  const sc_time write_done = frame_start(frame_after(write_req) + 26);
  EXPECT_EQ(t_read_start, write_req + cycle);
  // src_read waits for the write, requests the read, waits for it and leaves at the
  // first poll that sees BUSY clear inside the host window; the restore write follows.
  EXPECT_EQ(got & 0xffff, 0x1234u);
  EXPECT_EQ(got & 0x00870000, 0x00010000u);
  const sc_time read_req_min = write_done;
  const sc_time read_done_min = frame_start(frame_after(read_req_min) + 26);
  EXPECT_GE(t_read_end, read_done_min + cycle);           // the poll that saw it, the outl
  EXPECT_LE(t_read_end, read_done_min + cycle * 3.0);     // within two polls of it
  EXPECT_GT(t_read_end - t_read_start, frame_start(52));  // two waits of 26+ frames
  EXPECT_LT(t_read_end - t_read_start, frame_start(54));
  EXPECT_GT(polls_read, 2 * 26 * 20833 / 150u - 10);  // ~7000 port reads of 150 ns
  EXPECT_EQ(r.snd.src().stats().requests, 3u);        // write, read, restore
}

TEST(Es1371Codec, ReadDataArrivesTheFrameAfterTheCommandFrame) {
  fresh_simulation();
  Rig r;
  const sc_time t = sc_time(50, SC_US);  // frame 2 (41.67 .. 62.5 us)
  std::vector<uint32_t> seen;
  Script s("s", [&] {
    sc_core::wait(t);
    r.snd.write(E::ES_REG_1371_CODEC, 4, (0x7cu << 16) | E::ES_1371_CODEC_PIRD);
    seen.push_back(r.snd.read(E::ES_REG_1371_CODEC, 4));
    sc_core::wait(frame_start(4) - sc_core::sc_time_stamp());  // command frame 3 is over
    seen.push_back(r.snd.read(E::ES_REG_1371_CODEC, 4));
    sc_core::wait(frame_start(5) - sc_core::sc_time_stamp());
    seen.push_back(r.snd.read(E::ES_REG_1371_CODEC, 4));
  });
  sc_core::sc_start();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_TRUE(seen[0] & E::ES_1371_CODEC_WIP);
  EXPECT_FALSE(seen[1] & (E::ES_1371_CODEC_WIP | E::ES_1371_CODEC_RDY));
  EXPECT_EQ(seen[2], E::ES_1371_CODEC_RDY | E::ES_1371_CODEC_PIRD | (0x7cu << 16) | 0x8384u);
}

// ---- playback DMA and period interrupts ----

TEST(Es1371Dac, Dac2PeriodInterruptsAndFetchTrainsFollowTheProgrammedRegisters) {
  fresh_simulation();
  Rig r;
  const sc_time t_start = sc_time(10, SC_MS);
  std::vector<sc_time> irq_at;
  std::vector<uint32_t> status;
  uint32_t count_mid = 0, size_at_irq1 = 0;
  Script s("s", [&] {
    r.dac_rate(Src::SMPREG_DAC2, Src::DIS_P2, 44100);  // through the bus: ~3.5 ms of polling
    ASSERT_LT(sc_core::sc_time_stamp(), t_start);
    // latencytest: 3 fragments of 256 bytes, 44.1 kHz 16-bit stereo
    r.playback2_prepare(3 * 256, 256, 3);
    sc_core::wait(t_start - sc_core::sc_time_stamp());
    r.trigger(E::ES_DAC2_EN, true);
    for (int p = 0; p < 10; ++p) {
      while (!r.snd.inta.level()) sc_core::wait(sc_time(1, SC_US));
      irq_at.push_back(sc_core::sc_time_stamp());
      if (p == 0) size_at_irq1 = r.snd.read(E::ES_REG_DAC2_SIZE, 4);
      status.push_back(r.interrupt());
      if (p == 0) {
        sc_core::wait(sc_time(700, SC_US));
        count_mid = r.snd.read(E::ES_REG_DAC2_COUNT, 4);
      }
    }
    r.trigger(E::ES_DAC2_EN, false);
  });
  sc_core::sc_start();

  const uint32_t freq = linux_freq(44100);
  ASSERT_EQ(freq, 481690u);
  const uint64_t k0 = frame_after(t_start);
  ASSERT_EQ(irq_at.size(), 10u);
  for (uint64_t p = 1; p <= 10; ++p) {
    // The handler polls every 1 us: it sees the line within 1 us of the frame start
    // at which the converter took sample 64p.
    const sc_time want = sample_time(k0, freq, 64 * p);
    EXPECT_GE(irq_at[p - 1], want) << p;
    EXPECT_LT(irq_at[p - 1], want + sc_time(1, SC_US)) << p;
    EXPECT_EQ(status[p - 1], E::ES_INTR | E::ES_DAC2) << p;
  }
  // Rising edges exactly there, falling at the acknowledges.
  ASSERT_EQ(r.irq.edges.size(), 20u);
  for (uint64_t p = 1; p <= 10; ++p) {
    EXPECT_EQ(r.irq.edges[2 * (p - 1)].first, sample_time(k0, freq, 64 * p)) << p;
    EXPECT_TRUE(r.irq.edges[2 * (p - 1)].second);
    EXPECT_FALSE(r.irq.edges[2 * p - 1].second);
  }
  // 64 frames at 44.1 kHz is 1.4512 ms; the converter works in 48 kHz frames, so a
  // period is 69 or 70 of them and ten average out.
  const sc_time first = sample_time(k0, freq, 64), tenth = sample_time(k0, freq, 640);
  EXPECT_NEAR((tenth - first).to_seconds() / 9, 64.0 / 44100.0, 1e-5);

  // Trains: the FIFO fill at start (two 8-dword bursts), then per period the refills
  // issued each time 32 bytes (8 stereo frames) have been played.
  const sc_time tenure = ps(12 * kClkPs);
  ASSERT_GE(r.log.trains.size(), 12u);
  const pci::BurstTrain& fill = r.log.trains[0];
  EXPECT_EQ(fill.master, 1);
  EXPECT_EQ(fill.start, t_start);
  EXPECT_EQ(fill.end, t_start + tenure * 2.0);
  EXPECT_EQ(fill.bytes, 64u);
  EXPECT_FALSE(fill.to_memory);
  const pci::BurstTrain& p0 = r.log.trains[1];  // refills after 8, 16, ... 56 samples
  EXPECT_EQ(p0.start, sample_time(k0, freq, 8));
  EXPECT_EQ(p0.bytes, 7u * 32);
  EXPECT_EQ(p0.period, ps(to_ps(sample_time(k0, freq, 56) - sample_time(k0, freq, 8)) / 6));
  EXPECT_EQ(p0.tenure, tenure);
  for (uint64_t p = 1; p <= 10; ++p) {  // after 64p, 64p + 8, ... 64p + 56 samples
    const pci::BurstTrain& t = r.log.trains[1 + p];
    EXPECT_EQ(t.start, sample_time(k0, freq, 64 * p)) << p;
    EXPECT_EQ(t.bytes, 8u * 32) << p;
    EXPECT_EQ(t.end, t.start + t.period * 8.0) << p;
  }
  // Bytes fetched keep 64 ahead of the bytes played: 2 + 7 + 8 * 10 refills.
  EXPECT_EQ(r.snd.dac2().stats().fetches, 89u);
  EXPECT_EQ(r.snd.dac2().stats().periods, 10u);
  EXPECT_EQ(r.snd.stats().irqs, 10u);

  // Registers while playing: the refill position (longwords into the 192-longword
  // buffer; ALSA's ES_REG_FCURR_COUNTI makes bytes of it) and the frames left.
  EXPECT_EQ(size_at_irq1 & 0xffff, 191u);
  EXPECT_EQ(size_at_irq1 >> 16, (2u + 64 * 4 / 32) * 8);  // 10 refills = 80 longwords
  const sc_time mid = irq_at[0] + sc_time(700, SC_US);
  const uint64_t played = (uint64_t(frame_after(mid) - k0) * freq) >> 19;
  EXPECT_EQ(count_mid, (uint32_t(127 - played) << 16) | 63u);
}

TEST(Es1371Dac, Dac1IsTheAlsaPcm0PathWithItsOwnRegisters) {
  fresh_simulation();
  Rig r;
  const sc_time t_start = sc_time(8, SC_MS);
  Script s("s", [&] {
    r.dac_rate(Src::SMPREG_DAC1, Src::DIS_P1, 22050);
    // snd_ensoniq_playback1_prepare: 16-bit mono, 4 periods of 512 bytes
    r.snd.write(E::ES_REG_MEM_PAGE, 4, E::ES_PAGE_DAC);
    r.snd.write(E::ES_REG_DAC1_FRAME, 4, kDmaBuf);
    r.snd.write(E::ES_REG_DAC1_SIZE, 4, 2048 / 4 - 1);
    r.sctrl = E::ES_P1_INT_EN | (2u << E::kP1ModeShift);
    r.snd.write(E::ES_REG_SERIAL, 4, r.sctrl);
    r.snd.write(E::ES_REG_DAC1_COUNT, 4, 512 / 2 - 1);
    sc_core::wait(t_start - sc_core::sc_time_stamp());
    r.trigger(E::ES_DAC1_EN, true);
    while (!r.snd.inta.level()) sc_core::wait(sc_time(1, SC_US));
    EXPECT_EQ(r.interrupt(), E::ES_INTR | E::ES_DAC1);
    while (!r.snd.inta.level()) sc_core::wait(sc_time(1, SC_US));
    r.interrupt();
    r.trigger(E::ES_DAC1_EN, false);
  });
  sc_core::sc_start();
  const uint32_t freq = linux_freq(22050);
  const uint64_t k0 = frame_after(t_start);
  ASSERT_EQ(r.irq.edges.size(), 4u);
  EXPECT_EQ(r.irq.edges[0].first, sample_time(k0, freq, 256));  // 11.6 ms
  EXPECT_EQ(r.irq.edges[2].first, sample_time(k0, freq, 512));
  // 2 bytes a frame: a 32-byte refill every 16 frames
  EXPECT_EQ(r.log.trains[1].start, sample_time(k0, freq, 16));
  EXPECT_EQ(r.snd.dac2().stats().periods, 0u);
  EXPECT_EQ(r.snd.dac1().stats().periods, 2u);
}

TEST(Es1371Dac, MaskedPeriodSetsNoStatusAndPauseHoldsTheCounter) {
  fresh_simulation();
  Rig r;
  // Rate programmed directly into the SRC RAM (its bus timing is tested above).
  SampleRateConverter& src = r.snd.src();
  src.write((uint32_t(Src::SMPREG_DAC2 + 1) << 25) | Src::SRC_RAM_WE | (16u << 10), SC_ZERO_TIME);
  const sc_time t1 = src.served_at();
  src.write((uint32_t(Src::SMPREG_DAC2 + 3) << 25) | Src::SRC_RAM_WE | 0, t1);  // 48 kHz: 1.0
  const sc_time t_start = sc_time(2, SC_MS);
  const sc_time pause_at = t_start + sc_time(500, SC_US), resume_at = sc_time(4, SC_MS);
  uint32_t status_masked = 0xffffffff;
  Script s("s", [&] {
    sc_core::wait(t_start);
    ASSERT_EQ(src.vfreq(Src::SMPREG_DAC2, t_start), 1u << 19);
    r.playback2_prepare(4096, 1024, 3);  // 256 frames a period: 5.333 ms at 48 kHz
    r.sctrl &= ~E::ES_P2_INT_EN;
    r.snd.write(E::ES_REG_SERIAL, 4, r.sctrl);
    r.trigger(E::ES_DAC2_EN, true);
    sc_core::wait(pause_at - sc_core::sc_time_stamp());
    r.sctrl |= E::ES_P2_PAUSE;
    r.snd.write(E::ES_REG_SERIAL, 4, r.sctrl);
    sc_core::wait(resume_at - sc_core::sc_time_stamp());
    r.sctrl &= ~E::ES_P2_PAUSE;
    r.snd.write(E::ES_REG_SERIAL, 4, r.sctrl);
    sc_core::wait(sc_time(10, SC_MS));  // the first period ends unseen
    status_masked = r.snd.read(E::ES_REG_STATUS, 4);
    r.sctrl |= E::ES_P2_INT_EN;
    r.snd.write(E::ES_REG_SERIAL, 4, r.sctrl);
    while (!r.snd.inta.level()) sc_core::wait(sc_time(1, SC_US));
    r.interrupt();
    r.trigger(E::ES_DAC2_EN, false);
  });
  sc_core::sc_start();
  EXPECT_EQ(status_masked, 0u);
  // At 48 kHz one sample per frame: 24 frames played before the pause (frames
  // 97..120 of the link), the rest from the first frame after resume.
  const uint64_t k0 = frame_after(t_start), kp = frame_after(pause_at), kr = frame_after(resume_at);
  const uint64_t before = kp - k0;
  EXPECT_EQ(before, 24u);
  const sc_time first_end = frame_start(kr + (256 - before) - 1);
  const sc_time second_end = frame_start(kr + (512 - before) - 1);
  ASSERT_LT(first_end, resume_at + sc_time(10, SC_MS));
  ASSERT_EQ(r.irq.edges.size(), 2u);
  EXPECT_EQ(r.irq.edges[0].first, second_end);
  EXPECT_EQ(r.snd.dac2().stats().periods, 2u);
}

TEST(Es1371Registers, StatusIntrFollowsPendingChannelsAndPagesKeepTheirValues) {
  fresh_simulation();
  Rig r;
  EXPECT_EQ(r.snd.read(E::ES_REG_STATUS, 4), 0u);
  r.snd.write(E::ES_REG_MEM_PAGE, 4, 0x0d);  // ADC page: plain storage
  r.snd.write(E::ES_REG_DAC1_FRAME, 4, 0x1111);
  r.snd.write(E::ES_REG_MEM_PAGE, 4, E::ES_PAGE_DAC);
  r.snd.write(E::ES_REG_DAC1_FRAME, 4, 0x2222);
  EXPECT_EQ(r.snd.read(E::ES_REG_DAC1_FRAME, 4), 0x2222u);
  r.snd.write(E::ES_REG_MEM_PAGE, 4, 0x0d);
  EXPECT_EQ(r.snd.read(E::ES_REG_DAC1_FRAME, 4), 0x1111u);
  r.snd.write(E::ES_REG_DAC2_COUNT, 4, 63);
  EXPECT_EQ(r.snd.read(E::ES_REG_DAC2_COUNT, 4), (63u << 16) | 63u);  // stopped: full count
  EXPECT_EQ(r.snd.read(E::ES_REG_DAC2_COUNT + 2, 2), 63u);            // 16-bit read of 31:16
  EXPECT_EQ(r.snd.read(E::ES_REG_UART_STATUS, 1), 0u);                // no UART: never TXRDY
  r.snd.write(E::ES_REG_STATUS, 4, 0xffffffff);  // interrupt bits are not writable
  EXPECT_EQ(r.snd.read(E::ES_REG_STATUS, 4), 0x0fff0000u);
  EXPECT_TRUE(r.irq.edges.empty());
}

}  // namespace
}  // namespace latsim::sound
