// The FPU's lazy switching and kernel_fpu_begin/end (kernel_sim/arch/i387.cpp,
// kernel_sim/arch/mmx.cpp) on the fake CPU: __switch_to saves an owner's registers and
// sets CR0.TS, the next FPU use traps (#NM) and restores; on 2.4.10-preempt an MMX page
// clear preempted by an FPU-using task leaves both with registers not their own, unless
// the Athlon patch (or 2.6's kernel_fpu_begin) keeps preemption off inside.
#include <gtest/gtest.h>
#include "kernel_sim/kernel.h"
#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::kernel {
namespace {

using test::boot;
using test::FakeMachine;
using test::flavour_params;
using test::LambdaWorkload;
using test::ms;

// A decoder: FPU work, checked before and after, then a sleep until the next tick.
void decoder(Kernel& k, uint64_t cycles) {
  for (;;) {
    k.fpu_use("test");
    k.user_exec(cycles, 0);
    k.fpu_use("test");
    k.set_current_state(TASK_INTERRUPTIBLE);
    k.schedule_timeout(1, "test");
  }
}

KernelParams athlon(const char* flavour, bool mmx, bool patch) {
  KernelParams p = flavour_params(flavour);
  p.fpu.mmx_routines = mmx;
  p.fpu.athlon_patch = patch;
  return p;
}

TEST(I387, TwoFpuTasksSwitchLazilyWithoutCorruption) {
  FakeMachine m(1, athlon("2.4.10-preempt", false, false));
  boot(m, [](Kernel& k) {
    k.create_task(
        "a", [&k] { decoder(k, 100000); }, Policy::Normal, 0);
    k.create_task(
        "b", [&k] { decoder(k, 100000); }, Policy::Normal, 0);
  });
  sc_core::sc_start(ms(20));
  const FpuStats& f = m.k->fpu_stats();
  EXPECT_GT(f.nm_traps, 10u);  // each switch in traps at the first FPU instruction
  EXPECT_GT(f.saves, 10u);     // each switch out of an owner saves
  EXPECT_GT(f.restores, 10u);
  EXPECT_EQ(f.corrupted_user, 0u);
  EXPECT_EQ(f.corrupted_kernel, 0u);
  EXPECT_EQ(f.kernel_fpu, 0u);
}

TEST(I387, FirstUseInitsThenASwitchSavesAndTheTrapRestores) {
  FakeMachine m(1, athlon("2.4.10-preempt", false, false));
  boot(m, [](Kernel& k) {
    k.create_task(
        "a",
        [&k] {
          k.fpu_use("test");  // #NM: init_fpu, PF_USEDFPU
          k.set_current_state(TASK_INTERRUPTIBLE);
          k.schedule_timeout(1, "test");
          k.fpu_use("test");  // switched out (saved, TS set) and back: #NM, restore
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(5));
  const FpuStats& f = m.k->fpu_stats();
  EXPECT_EQ(f.nm_traps, 2u);
  EXPECT_EQ(f.saves, 1u);
  EXPECT_EQ(f.restores, 1u);
  EXPECT_EQ(f.corrupted_user, 0u);
}

// A task clearing pages with MMX and a decoder woken every tick that preempts it.
FpuStats mmx_under_decoder(const KernelParams& p) {
  FakeMachine m(1, p);
  boot(m, [](Kernel& k) {
    k.create_task(
        "clear",
        [&k] {
          for (;;) {
            EXPECT_TRUE(k.mmx_clear_page("test"));
            k.user_exec(1000, 0);
          }
        },
        Policy::Normal, 0);
    k.create_task(
        "dec", [&k] { decoder(k, 20000); }, Policy::Fifo, 10);
  });
  sc_core::sc_start(ms(20));
  const FpuStats& f = m.k->fpu_stats();
  ::testing::Test::RecordProperty("kernel_fpu_sections", int(f.kernel_fpu));
  ::testing::Test::RecordProperty("switched_inside", int(f.switched_inside));
  ::testing::Test::RecordProperty("corrupted_user", int(f.corrupted_user));
  ::testing::Test::RecordProperty("corrupted_kernel", int(f.corrupted_kernel));
  return f;
}

TEST(I387, PreemptedMmxClearOn24CorruptsBothSides) {
  const FpuStats f = mmx_under_decoder(athlon("2.4.10-preempt", true, false));
  EXPECT_GT(f.kernel_fpu, 100u);
  EXPECT_GT(f.corrupted_user, 0u);    // the decoder found the kernel's MMX values
  EXPECT_GT(f.corrupted_kernel, 0u);  // the clear resumed with the decoder's
}

TEST(I387, TheAthlonPatchKeepsTheMmxClearWhole) {
  const FpuStats f = mmx_under_decoder(athlon("2.4.10-preempt", true, true));
  EXPECT_GT(f.kernel_fpu, 100u);
  EXPECT_EQ(f.corrupted_user, 0u);
  EXPECT_EQ(f.corrupted_kernel, 0u);
  EXPECT_GT(f.nm_traps, 10u);  // the decoder still traps after each kernel_fpu_end's stts
}

TEST(I387, On26KernelFpuBeginDisablesPreemptionItself) {
  const FpuStats f = mmx_under_decoder(athlon("2.6.9", true, false));
  EXPECT_EQ(f.corrupted_user + f.corrupted_kernel, 0u);
}

TEST(I387, ThePatchedSectionIsNonPreemptible) {
  KernelParams p = athlon("2.4.10-preempt", true, true);
  FakeMachine m(1, p);
  uint32_t count_inside = 0;
  boot(m, [&](Kernel& k) {
    k.create_task(
        "clear",
        [&] {
          k.kernel_fpu_begin("test");
          count_inside = k.current().preempt_count;
          k.kernel_fpu_end("test");
          EXPECT_EQ(k.current().preempt_count, 0u);
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(5));
  EXPECT_EQ(count_inside, PREEMPT_OFFSET);
}

// Runs `body` once in a task of a 2.4.10-preempt kernel with or without CONFIG_MK7.
FpuStats run_once(bool mmx, const std::function<void(Kernel&)>& body) {
  FakeMachine m(1, athlon("2.4.10-preempt", mmx, false));
  boot(m, [&](Kernel& k) {
    k.create_task(
        "t",
        [&] {
          body(k);
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(5));
  return m.k->fpu_stats();
}

TEST(I387, WithoutMk7TheGenericClearRuns) {
  bool clear = true;
  const FpuStats f = run_once(false, [&](Kernel& k) { clear = k.mmx_clear_page("test"); });
  EXPECT_FALSE(clear);
  EXPECT_FALSE(f.active());
}

TEST(I387, AMemcpyUnder512BytesIsTheGenericOne) {
  bool copy_short = true, copy_long = false;
  const FpuStats f = run_once(true, [&](Kernel& k) {
    copy_short = k.mmx_memcpy(511, "test");  // __memcpy3d: len < 512
    copy_long = k.mmx_memcpy(4096, "test");
  });
  EXPECT_FALSE(copy_short);
  EXPECT_TRUE(copy_long);
  EXPECT_EQ(f.kernel_fpu, 1u);
  EXPECT_EQ(f.kernel_fpu_bytes, 4096u);
}

}  // namespace
}  // namespace latsim::kernel
