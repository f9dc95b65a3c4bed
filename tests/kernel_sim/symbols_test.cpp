// The traced kernel's symbol table (kernel_sim/trace/symbols.*): the
// "fn+0xOFF/0xSIZE" sites the VP tracer prints for section starts and ends.
#include "kernel_sim/trace/symbols.h"
#include <gtest/gtest.h>

namespace latsim::kernel {
namespace {

TEST(SymbolsTest, ScheduleLockAndUnlockSites) {
  // Seed 000, 2305 us trace: " => started at: schedule+0x51/0x740",
  // " => ended at:   schedule+0x337/0x740".
  EXPECT_EQ(format_site({"schedule", "lock"}), "schedule+0x51/0x740");
  EXPECT_EQ(format_site({"schedule", "unlock"}), "schedule+0x337/0x740");
  EXPECT_EQ(symbol_offset("schedule", "lock"), 0x51u);
  EXPECT_EQ(symbol_offset("schedule", "unlock"), 0x337u);
  EXPECT_EQ(symbol_size("schedule"), 0x740u);
}

TEST(SymbolsTest, DoIrqSites) {
  // Thomas Charbonnel's -Q9 trace: do_IRQ+0x19/0x1a0 .. do_IRQ+0x14d/0x1a0.
  EXPECT_EQ(format_site({"do_IRQ", "irq_enter"}), "do_IRQ+0x19/0x1a0");
  EXPECT_EQ(format_site({"do_IRQ", "irq_exit"}), "do_IRQ+0x14d/0x1a0");
}

TEST(SymbolsTest, OtherSeedSites) {
  EXPECT_EQ(format_site({"kmap_atomic", "lock"}), "kmap_atomic+0x23/0xe0");
  EXPECT_EQ(format_site({"kunmap_atomic", "unlock"}), "kunmap_atomic+0x7b/0xa0");
  EXPECT_EQ(format_site({"cond_resched_lock", "lock"}), "cond_resched_lock+0x6b/0x110");
  EXPECT_EQ(format_site({"exit_mmap", "unlock"}), "exit_mmap+0x155/0x1f0");
  EXPECT_EQ(format_site({"rtl8139_poll", "lock"}), "rtl8139_poll+0x3c/0x160");
}

TEST(SymbolsTest, UnknownPointIsFunctionEntry) {
  EXPECT_EQ(symbol_offset("schedule", "entry"), 0u);
  EXPECT_EQ(symbol_offset("schedule", "no_such_point"), 0u);
  EXPECT_EQ(format_site({"schedule", "no_such_point"}), "schedule+0x0/0x740");
  EXPECT_EQ(format_site({"schedule"}), "schedule+0x0/0x740");  // default point "entry"
  // A point that exists in another function does not leak across.
  EXPECT_EQ(format_site({"do_IRQ", "lock"}), "do_IRQ+0x0/0x1a0");
}

TEST(SymbolsTest, UnknownFunctionDefaultSize) {
  EXPECT_EQ(symbol_size("no_such_function"), 0x100u);
  EXPECT_EQ(symbol_offset("no_such_function", "lock"), 0u);
  EXPECT_EQ(format_site({"no_such_function", "lock"}), "no_such_function+0x0/0x100");
}

}  // namespace
}  // namespace latsim::kernel
