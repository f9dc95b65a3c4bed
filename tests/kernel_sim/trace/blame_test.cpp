// The blame ledger's arithmetic: a call's stalls go to their causes, the rest to the code,
// and a section's items sum to the calls charged to it.
#include "kernel_sim/trace/blame.h"
#include <gtest/gtest.h>

namespace latsim::kernel {
namespace {

sc_time ps(uint64_t v) { return sc_time::from_value(v); }

class Names : public BlameNames {
 public:
  std::string comm(int pid) const override { return pid == 318 ? "cc1" : "?"; }
  BlameRequest request(uint64_t seq) const override { return {seq, 8, 256, false, 303, "cat"}; }
};

BlameCaller caller() {
  BlameCaller who;
  who.code.fn = "__copy_to_user_ll";
  who.code.pid = 318;
  who.spin = {BlameKind::Spin, BlameContext::Kernel, true, "schedule", "runqueue_lock", -1, 7, 1};
  who.disk = 12;
  return who;
}

TEST(BlameLedger, SplitsACallIntoItsStallsAndTheCode) {
  BlameCall c;
  c.ps = 10'000;
  c.port = 0x40;
  c.stalled = true;
  c.stalls.held_off[2] = ps(6'000);  // master 2 held the CPU off for 6 ns
  c.stalls.isa = ps(1'500);
  c.stalls.spin = ps(500);
  BlameLedger l;
  charge_call(l, c, caller());
  const Names names;
  const auto items = l.items(&names);
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].key.kind, BlameKind::BusMaster);
  EXPECT_EQ(items[0].key.id, 2);
  EXPECT_EQ(items[0].ps, 6'000u);
  EXPECT_EQ(items[0].request.comm, "cat");  // the IDE request in flight, named when read
  EXPECT_EQ(items[1].key.kind, BlameKind::Isa);
  EXPECT_EQ(items[1].key.id, 0x40);
  EXPECT_EQ(items[2].key.kind, BlameKind::Spin);
  EXPECT_STREQ(items[2].key.lock, "runqueue_lock");
  EXPECT_EQ(items[2].ps, 500u);
  EXPECT_EQ(items[3].key.kind, BlameKind::Code);
  EXPECT_EQ(items[3].ps, 2'000u);  // 10000 - 6000 - 1500 - 500
  EXPECT_EQ(items[3].task, "cc1");
  EXPECT_EQ(l.total_ps(), c.ps);
}

TEST(BlameLedger, MergesRepeatedCausesInOrderOfFirstCharge) {
  BlameLedger l;
  BlameKey k;
  k.fn = "do_timer";
  l.charge(k, 5);
  BlameKey irq = k;
  irq.context = BlameContext::Irq;
  l.charge(irq, 1);
  l.charge(k, 7);
  BlameKey off = k;  // the same code with preemption off: another cause
  off.critical = true;
  l.charge(off, 2);
  const auto items = l.items(nullptr);
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].ps, 12u);
  EXPECT_EQ(items[1].key.context, BlameContext::Irq);
  EXPECT_TRUE(items[2].key.critical);
  EXPECT_EQ(l.total_ps(), 15u);
}

TEST(BlameLedger, ALongIntervalIsCompactedWithoutLosingTime) {
  BlameLedger l;
  BlameKey a, b;
  a.fn = "a";
  b.fn = "b";
  for (int i = 0; i < 200'000; ++i) l.charge(i % 3 ? a : b, 2);
  EXPECT_EQ(l.total_ps(), 400'000u);
  const auto items = l.items(nullptr);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].key.fn, b.fn);  // charged first (i = 0)
  EXPECT_EQ(items[0].ps + items[1].ps, 400'000u);
}

TEST(BlameLedger, StallsLongerThanTheCallShowAsAnExcessNotAWrap) {
  BlameCall c;
  c.ps = 1'000;
  c.stalled = true;
  c.stalls.pci = ps(1'200);  // a model inconsistency: the sum check must see it
  BlameLedger l;
  charge_call(l, c, caller());
  EXPECT_EQ(l.total_ps(), 1'200u);
}

// A window that begins inside a call gets the call's tail, its stalls in proportion,
// and the tail still sums to its own length.
TEST(BlameLedger, TheTailOfACallKeepsItsProportions) {
  BlameCall c;
  c.start_ps = 1'000;
  c.ps = 8'000;
  c.stalled = true;
  c.stalls.video_fifo = ps(6'000);
  const BlameCall t = c.tail(3'000);  // the last 6000 ps of the call
  EXPECT_EQ(t.start_ps, 3'000u);
  EXPECT_EQ(t.ps, 6'000u);
  EXPECT_EQ(t.stalls.video_fifo.value(), 4'500u);
  BlameLedger l;
  charge_call(l, t, caller());
  EXPECT_EQ(l.total_ps(), 6'000u);
  EXPECT_EQ(c.tail(9'000).ps, 0u);  // a window starting at the call's end takes nothing
}

}  // namespace
}  // namespace latsim::kernel
