// preempt_count layout (kernel_sim/sched/task.h) against include/asm-i386/hardirq.h
// and thread_info.h of 2.6.9: preempt depth bits 0-7, softirq 8-15, hardirq
// 16-23, PREEMPT_ACTIVE 0x4000000 (bit 26). The VP tracer prints it "%08x".
#include <fmt/format.h>
#include <gtest/gtest.h>
#include "kernel_sim/sched/task.h"

namespace latsim::kernel {
namespace {

static_assert(PREEMPT_OFFSET == 0x1u, "PREEMPT_SHIFT 0");
static_assert(SOFTIRQ_OFFSET == 0x100u, "SOFTIRQ_SHIFT 8");
static_assert(HARDIRQ_OFFSET == 0x10000u, "HARDIRQ_SHIFT 16");
static_assert(PREEMPT_ACTIVE == 0x4000000u, "asm-i386/thread_info.h");

TEST(PreemptCountTest, LayoutConstants) {
  EXPECT_EQ(PREEMPT_OFFSET, 0x00000001u);
  EXPECT_EQ(SOFTIRQ_OFFSET, 0x00000100u);
  EXPECT_EQ(HARDIRQ_OFFSET, 0x00010000u);
  EXPECT_EQ(PREEMPT_ACTIVE, 0x04000000u);
  EXPECT_EQ(PREEMPT_ACTIVE, 1u << 26);
  // The three counters are 8 bits each and do not overlap PREEMPT_ACTIVE.
  EXPECT_EQ(PREEMPT_OFFSET * 0xffu, 0x000000ffu);  // PREEMPT_MASK
  EXPECT_EQ(SOFTIRQ_OFFSET * 0xffu, 0x0000ff00u);  // SOFTIRQ_MASK
  EXPECT_EQ(HARDIRQ_OFFSET * 0xffu, 0x00ff0000u);  // HARDIRQ_MASK
  EXPECT_EQ((HARDIRQ_OFFSET * 0xffu) & PREEMPT_ACTIVE, 0u);
}

TEST(PreemptCountTest, FormatsAsInVpTraces) {
  // Seed 000: "04010002 1.116ms (+0.316ms): do_IRQ (finish_task_switch)".
  EXPECT_EQ(fmt::format("{:08x}", PREEMPT_ACTIVE | HARDIRQ_OFFSET | 2u), "04010002");
  EXPECT_EQ(fmt::format("{:08x}", PREEMPT_ACTIVE + 2 * PREEMPT_OFFSET), "04000002");
  EXPECT_EQ(fmt::format("{:08x}", HARDIRQ_OFFSET), "00010000");
  EXPECT_EQ(fmt::format("{:08x}", 2 * HARDIRQ_OFFSET + PREEMPT_OFFSET), "00020001");  // NMI in IRQ
  EXPECT_EQ(fmt::format("{:08x}", SOFTIRQ_OFFSET + PREEMPT_OFFSET), "00000101");
}

TEST(PreemptCountTest, NicePriorities) {
  EXPECT_EQ(MAX_RT_PRIO, 100);
  EXPECT_EQ(MAX_PRIO, 140);
  EXPECT_EQ(nice_to_prio(-20), 100);
  EXPECT_EQ(nice_to_prio(0), 120);
  EXPECT_EQ(nice_to_prio(19), 139);
}

}  // namespace
}  // namespace latsim::kernel
