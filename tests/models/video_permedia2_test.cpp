// Permedia 2-class graphics controller in isolation: the input FIFO in front of
// the graphics core (one entry taken at a time, a time per entry by kind), the
// InFIFOSpace status register, FIFO level statistics, and the two answers to a
// write into a full FIFO: wait states until the core takes an entry (pre-PCI 2.1:
// the bus stays held) or Retry at the 16-clock initial-latency limit (PCI 2.1).
// Each access is annotated with the 3 + 2 clocks the PCI bus charges before the
// target, as PciBus::b_transport does.
#include "models/pci/target_termination.h"
#include "models/video/permedia2.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <functional>
#include <utility>
#include <vector>

namespace latsim::video {
namespace {

using latsim::testing::fresh_simulation;
using latsim::testing::TestInitiator;
using P2 = Permedia2;

constexpr uint64_t kClkPs = 30003;  // 33.33 MHz PCI clock
sc_time clocks(uint64_t n) { return ps(n * kClkPs); }
// Functions, not globals: no sc_time may exist before the test sets the resolution.
sc_time bus_charge() { return clocks(3 + 2); }  // address, DEVSEL + 1 wait, data, turnaround
constexpr uint64_t kBlockColor = 0x8ac8;        // a plain core register: one register load
// The default drain times (Permedia2Params' assumed figures).
sc_time load() { return sc_time(12, SC_NS); }
sc_time setup() { return sc_time(120, SC_NS); }
sc_time fill_px() { return sc_time(12, SC_NS); }
sc_time copy_px() { return sc_time(40, SC_NS); }

using latsim::test::Script;

struct Access {
  tlm::tlm_response_status status;
  sc_time delay;  // as returned: bus charge plus what the card added
  sc_time at;     // the nominal data phase: sc_time_stamp() + bus charge
  sc_time bus;    // the bus charge it came with
};

struct Rig {
  P2 card;
  TestInitiator host{"host"};
  std::vector<std::pair<sc_time, unsigned>> levels;

  explicit Rig(unsigned depth, FullFifoWrite mode = FullFifoWrite::Pci20Hold)
      : card("card", params(depth, mode)) {
    host.socket.bind(card.socket);
    card.on_level([this](sc_time t, unsigned n) { levels.emplace_back(t, n); });
  }
  static Permedia2Params params(unsigned depth, FullFifoWrite mode) {
    Permedia2Params p;
    p.fifo_entries = depth;
    p.full_write = mode;
    return p;
  }
  // One dword write as the bus delivers it; the calling thread waits it out.
  Access wr(uint64_t off, uint32_t v, sc_time bus = bus_charge()) {
    sc_time d = bus;
    const sc_time at = sc_core::sc_time_stamp() + bus;
    const auto st = host.access(tlm::TLM_WRITE_COMMAND, off, &v, 4, d);
    sc_core::wait(d);
    return {st, d, at, bus};
  }
  uint32_t rd(uint64_t off) {
    sc_time d = bus_charge();
    const uint32_t v = host.read32(off, d);
    sc_core::wait(d);
    return v;
  }
  // pm2fb-style rectangle: size, config (copy reads the source), Render.
  Access rect(uint32_t w, uint32_t h, bool copy) {
    wr(P2::kRectangleSize, (h << 16) | w);
    wr(P2::kConfig, copy ? P2::kConfigReadSource : 0);
    return wr(P2::kRender, P2::kRenderRectangle);
  }
};

TEST(Permedia2Fifo, IdleCoreTakesEntriesAtOnceBusyCoreQueuesThemInOrder) {
  fresh_simulation();
  Rig r(4);
  std::vector<Access> loads;
  Access render{};
  uint32_t space_idle = 0, space_busy = 0;
  Script s("s", [&] {
    sc_core::wait(sc_time(1, SC_US));
    space_idle = r.rd(P2::kInFifoSpace);
    render = r.rect(100, 10, /*copy=*/false);  // 1000 pixels filled
    for (int i = 0; i < 3; ++i) loads.push_back(r.wr(kBlockColor, uint32_t(i)));
    space_busy = r.rd(P2::kInFifoSpace);
  });
  sc_core::sc_start();

  EXPECT_EQ(space_idle, 4u);
  // The two set-up loads and the Render each met an idle core (150 ns apart, 12 ns each).
  const sc_time render_end = render.at + setup() + fill_px() * 1000.0;
  // The three loads wait behind the Render; the core takes them one per 12 ns.
  EXPECT_EQ(space_busy, 1u);
  ASSERT_EQ(r.levels.size(), 6u);
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_EQ(loads[i].status, tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(loads[i].delay, bus_charge());  // free entries: no wait states
    EXPECT_EQ(r.levels[i], std::make_pair(loads[i].at, i + 1));
    EXPECT_EQ(r.levels[3 + i], std::make_pair(render_end + load() * double(i), 2 - i));
  }
  EXPECT_EQ(r.card.core_busy_until(), render_end + load() * 3.0);
  EXPECT_EQ(r.card.level(), 0u);

  const auto& st = r.card.stats();
  EXPECT_EQ(st.fifo_writes, 6u);
  EXPECT_EQ(st.renders, 1u);
  EXPECT_EQ(st.pixels, 1000u);
  EXPECT_EQ(st.status_reads, 2u);
  EXPECT_EQ(st.max_level, 3u);
  EXPECT_EQ(st.full_writes, 0u);
  // Level x time: 1, 2, 3 entries between the writes, then 3, 2, 1 while draining.
  const sc_time area = (loads[1].at - loads[0].at) + (loads[2].at - loads[1].at) * 2.0 +
                       (render_end - loads[2].at) * 3.0 + load() * 2.0 + load();
  EXPECT_EQ(st.level_integral, area);
  EXPECT_EQ(st.time_full, SC_ZERO_TIME);
}

TEST(Permedia2Fifo, RenderCostFollowsPrimitiveRectangleAndSourceRead) {
  fresh_simulation();
  Rig r(8);
  Access copy{}, fill{}, line{};
  sc_time after_copy, after_fill, after_line;
  Script s("s", [&] {
    copy = r.rect(64, 32, /*copy=*/true);
    after_copy = r.card.core_busy_until();
    sc_core::wait(sc_time(200, SC_US));  // let the core finish
    fill = r.rect(64, 32, /*copy=*/false);
    after_fill = r.card.core_busy_until();
    sc_core::wait(sc_time(100, SC_US));
    line = r.wr(P2::kRender, 0);  // a line: rasteriser start-up only in this model
    after_line = r.card.core_busy_until();
  });
  sc_core::sc_start();
  EXPECT_EQ(after_copy, copy.at + setup() + copy_px() * 2048.0);  // reads and writes each pixel
  EXPECT_EQ(after_fill, fill.at + setup() + fill_px() * 2048.0);
  EXPECT_EQ(after_line, line.at + setup());
  EXPECT_EQ(r.card.stats().renders, 3u);
  EXPECT_EQ(r.card.stats().pixels, 4096u);
}

// The scale of the 2004 report (O12): a screen-to-screen copy of a window of most of
// 1024x768 keeps the core busy for tens of ms with the default (assumed) drain table.
TEST(Permedia2Fifo, DefaultTableCopiesMostOf1024x768InTensOfMilliseconds) {
  fresh_simulation();
  Rig r(256);
  Access copy{};
  Script s("s", [&] { copy = r.rect(1000, 700, /*copy=*/true); });
  sc_core::sc_start();
  EXPECT_EQ(r.card.core_busy_until() - copy.at, sc_time(120, SC_NS) + sc_time(28, SC_MS));
}

TEST(Permedia2Fifo, Pci20FullFifoHoldsTheWriteUntilTheCoreTakesTheHead) {
  fresh_simulation();
  Rig r(2, FullFifoWrite::Pci20Hold);
  Access render{}, held{};
  std::vector<Access> fill;
  Script s("s", [&] {
    render = r.rect(100, 100, /*copy=*/true);  // 400.12 us of copying
    fill.push_back(r.wr(kBlockColor, 1));
    fill.push_back(r.wr(kBlockColor, 2));  // FIFO full
    held = r.wr(kBlockColor, 3);
  });
  sc_core::sc_start();

  const sc_time render_end = render.at + setup() + copy_px() * 10000.0;
  // Wait states from the nominal data phase until the core takes the head entry.
  EXPECT_EQ(held.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(held.delay, bus_charge() + (render_end - held.at));
  const auto& st = r.card.stats();
  EXPECT_EQ(st.full_writes, 1u);
  EXPECT_EQ(st.retries, 0u);
  EXPECT_EQ(st.hold_total, render_end - held.at);
  EXPECT_EQ(st.longest_hold, render_end - held.at);
  EXPECT_EQ(st.fifo_writes, 6u);
  // The held entry took the head's place; the core then runs all three loads.
  EXPECT_EQ(r.card.core_busy_until(), render_end + load() * 3.0);
  // Full from the second load until the core took the first load after the copy.
  EXPECT_EQ(st.time_full, render_end + load() - fill[1].at);
  EXPECT_EQ(st.max_level, 2u);
}

TEST(Permedia2Fifo, Pci21FullFifoRetriesAtTheSixteenClockLimitThenAccepts) {
  fresh_simulation();
  Rig r(2, FullFifoWrite::Pci21Retry);
  Access render{}, retried{}, again{};
  uint32_t space_full = 99;
  Script s("s", [&] {
    render = r.rect(100, 100, /*copy=*/true);
    r.wr(kBlockColor, 1);
    r.wr(kBlockColor, 2);
    retried = r.wr(kBlockColor, 3);
    space_full = r.rd(P2::kInFifoSpace);
    sc_core::wait(sc_time(500, SC_US));  // past the copy's end
    again = r.wr(kBlockColor, 3);
  });
  sc_core::sc_start();

  // STOP# at 16 clocks from FRAME#: the bus charged 3 + 2, the card 14 more.
  EXPECT_EQ(retried.status, tlm::TLM_INCOMPLETE_RESPONSE);  // Retry, see target_termination.h
  EXPECT_EQ(retried.delay, clocks(3 + pci::kInitialLatencyLimitClocks));
  EXPECT_EQ(space_full, 0u);
  EXPECT_EQ(again.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(again.delay, bus_charge());
  const auto& st = r.card.stats();
  EXPECT_EQ(st.full_writes, 1u);
  EXPECT_EQ(st.retries, 1u);
  EXPECT_EQ(st.hold_total, SC_ZERO_TIME);  // the bus was never held
  EXPECT_EQ(st.fifo_writes, 6u);           // the retried write moved no data
}

TEST(Permedia2Fifo, Pci21AcceptsWithWaitStatesWhenTheHeadGoesWithinTheLimit) {
  fresh_simulation();
  Rig r(1, FullFifoWrite::Pci21Retry);
  Access render{}, waited{};
  Script s("s", [&] {
    render = r.wr(P2::kRender, 0);       // 120 ns of rasteriser start-up
    r.wr(kBlockColor, 1, SC_ZERO_TIME);  // queued at once: FIFO full
    // Arrives 3 clocks before the core takes the head: within 14 more clocks.
    const sc_time head = render.at + setup();
    const sc_time bus = head - clocks(3) - sc_core::sc_time_stamp();
    waited = r.wr(kBlockColor, 2, bus);
  });
  sc_core::sc_start();
  EXPECT_EQ(waited.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(waited.delay, waited.bus + clocks(3));  // three wait states, then TRDY#
  EXPECT_EQ(r.card.stats().retries, 0u);
  EXPECT_EQ(r.card.stats().hold_total, clocks(3));
}

TEST(Permedia2Registers, FifoDisconSelectsRetryAndStatusReadsFreeEntries) {
  fresh_simulation();
  Rig r(16);
  uint32_t discon = 99, reset = 99, space = 0;
  FullFifoWrite mode_after_set{}, mode_after_clear{};
  Script s("s", [&] {
    space = r.rd(P2::kInFifoSpace);
    reset = r.rd(P2::kResetStatus);
    r.wr(P2::kFifoDiscon, 1);  // pm2fb with CONFIG_FB_PM2_FIFO_DISCONNECT
    mode_after_set = r.card.full_write();
    discon = r.rd(P2::kFifoDiscon);
    r.wr(P2::kFifoDiscon, 0);
    mode_after_clear = r.card.full_write();
  });
  sc_core::sc_start();
  EXPECT_EQ(space, 16u);
  EXPECT_EQ(reset, 0u);
  EXPECT_EQ(discon, 1u);
  EXPECT_EQ(mode_after_set, FullFifoWrite::Pci21Retry);
  EXPECT_EQ(mode_after_clear, FullFifoWrite::Pci20Hold);
  EXPECT_EQ(r.card.stats().fifo_writes, 0u);  // control registers bypass the FIFO
}

TEST(Permedia2Registers, NonDwordAccessIsABurstError) {
  fresh_simulation();
  Rig r(4);
  tlm::tlm_response_status st{};
  Script s("s", [&] {
    uint16_t v = 1;
    sc_time d = bus_charge();
    st = r.host.access(tlm::TLM_WRITE_COMMAND, kBlockColor, &v, 2, d);
  });
  sc_core::sc_start();
  EXPECT_EQ(st, tlm::TLM_BURST_ERROR_RESPONSE);
  EXPECT_EQ(r.card.stats().fifo_writes, 0u);
}

}  // namespace
}  // namespace latsim::video
