#pragma once
// The FPU/MMX register file and its lazy switching (arch/i386/kernel/i387.c,
// include/asm-i386/i387.h, traps.c math_state_restore), held abstractly: whose values
// the live registers and each task's saved image are, so that a task resuming with
// contents that are not its own is seen and counted.
#include <cstdint>

namespace latsim::kernel {

// Register contents: the task (pid) whose values they are and which generation of them.
// A negative owner is the kernel's MMX routine running on behalf of task -owner.
struct FpuImage {
  int owner = 0;  // 0: nothing (after boot)
  uint64_t gen = 0;
  bool operator==(const FpuImage& o) const { return owner == o.owner && gen == o.gen; }
  bool operator!=(const FpuImage& o) const { return !(*this == o); }
};

// A task's FPU state (task_struct flags and thread.i387).
struct TaskFpu {
  bool used_fpu = false;   // PF_USEDFPU (2.4) / TS_USEDFPU (2.6): the live registers are its
  bool used_math = false;  // it has an image to restore
  FpuImage saved;          // thread.i387: what fxsave last wrote
  FpuImage own;            // what it last left in its registers: the checker's reference
  FpuImage kernel;         // its kernel MMX routine's registers, while one runs
  bool in_kernel_fpu = false;
  bool kernel_corrupted = false;    // the running routine already found its registers changed
  double kernel_begin_s = 0;        // when it entered kernel_fpu_begin
  bool kernel_preemptible = false;  // and whether preemption was on there (before the patch's)
};

// Counters of the mechanism (metrics.json fpu.*).
struct FpuStats {
  uint64_t nm_traps = 0;          // device_not_available (#NM): math_state_restore
  uint64_t saves = 0;             // fxsave at __switch_to (unlazy_fpu) or kernel_fpu_begin
  uint64_t restores = 0;          // fxrstor in math_state_restore
  uint64_t kernel_fpu = 0;        // kernel_fpu_begin .. kernel_fpu_end sections
  uint64_t kernel_fpu_bytes = 0;  // bytes the MMX routines cleared or copied
  uint64_t switched_inside = 0;   // a task switched away between kernel_fpu_begin and _end
  uint64_t corrupted_user = 0;    // a task's FPU use found registers not its own
  uint64_t corrupted_kernel = 0;  // an MMX routine found its registers changed under it
  double kernel_fpu_max_us = 0;   // the longest kernel_fpu_begin .. kernel_fpu_end
  // Time in sections entered with preemption on: where 2.4 can switch tasks mid-routine
  // (with the Athlon patch, the non-preemptible time the patch adds).
  double preemptible_s = 0;
  double preemptible_max_us = 0;
  bool active() const { return nm_traps || saves || kernel_fpu; }
};

}  // namespace latsim::kernel
