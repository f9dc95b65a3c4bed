// arch/i386/kernel/i387.c, include/asm-i386/i387.h and traps.c's math_state_restore: the
// FPU is switched lazily. A task's registers stay live until __switch_to saves them
// (unlazy_fpu) and sets CR0.TS; the next FPU instruction of whoever runs then traps
// (#NM) and math_state_restore loads that task's own image. kernel_fpu_begin() lets
// kernel code use the registers (MMX): it saves the current task's if it owns them and
// clears TS. On 2.4 nothing stops preemption inside: the task switched to may find TS
// clear and the kernel's MMX values in the registers, and the kernel's loop may resume
// with someone else's (Robert Love, LKML 2001-09-14: "not preempt safe (but SMP safe)").
#include <algorithm>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

params::Table<I387Params> i387_keys() {
  using namespace params;
  using P = I387Params;
  return {
      bind<P>(with_source(of_type(ValueType::Bool, "mmx_routines",
                                  "CONFIG_MK7: clear_page, copy_page and memcpy >= 512 bytes run "
                                  "arch/i386/lib/mmx.c between kernel_fpu_begin/end"),
                          "2.4 include/asm-i386/string.h __memcpy3d, page.h clear_page"),
              &P::mmx_routines),
      bind<P>(with_source(of_type(ValueType::Bool, "athlon_patch",
                                  "Robert Love's Athlon patch: kernel_fpu_begin does "
                                  "ctx_sw_off(), kernel_fpu_end ctx_sw_on() (2.6 flavours: "
                                  "always)"),
                          "seed 004: linux-2.4.10-pre8 i387.c/i387.h patch"),
              &P::athlon_patch),
      bind<P>(with_source(integer("fxsave_cycles", 0, 10000, "cycles",
                                  "fxsave of a task's 512-byte FPU image (unlazy_fpu)"),
                          "assumption: 16 lines at ~6 cycles"),
              &P::fxsave_cycles),
      bind<P>(with_source(integer("fxrstor_cycles", 0, 10000, "cycles",
                                  "fxrstor of a task's image in math_state_restore"),
                          "assumption: 16 lines at ~6 cycles"),
              &P::fxrstor_cycles),
      bind<P>(with_source(integer("nm_trap_cycles", 0, 10000, "cycles",
                                  "device_not_available: exception entry and iret"),
                          "assumption: as an interrupt's entry and exit"),
              &P::nm_trap_cycles),
      bind<P>(with_source(integer("clear_cycles_per_64", 1, 1000, "cycles",
                                  "fast_clear_page: one 64-byte iteration (memory time apart)"),
                          "arch/i386/lib/mmx.c K7 loop, 1 instruction/cycle"),
              &P::clear_cycles_per_64),
      bind<P>(with_source(integer("copy_cycles_per_64", 1, 1000, "cycles",
                                  "fast_copy_page, _mmx_memcpy: one 64-byte iteration"),
                          "arch/i386/lib/mmx.c K7 loop, 1 instruction/cycle"),
              &P::copy_cycles_per_64),
  };
}

// The 512-byte image's lines, keyed by the task: they miss when evicted since.
void Kernel::save_init_fpu(Task& t) {
  fn("__save_init_fpu", "unlazy_fpu", p_.fpu.fxsave_cycles);
  exec(0, line_fills(&t.fpu, 512 / 32, true));
  t.fpu.saved = pcpu_[size_t(t.cpu)].fpu_regs;
  t.fpu.used_fpu = false;  // tsk->flags &= ~PF_USEDFPU
  fpu_stats_.saves++;
}

// include/asm-i386/i387.h unlazy_fpu -> save_init_fpu: __save_init_fpu, then stts().
void Kernel::unlazy_fpu(Task& prev) {
  if (prev.fpu.in_kernel_fpu) fpu_stats_.switched_inside++;
  if (!prev.fpu.used_fpu) return;
  save_init_fpu(prev);
  pcpu_[size_t(prev.cpu)].cr0_ts = true;
}

// traps.c math_state_restore: clts; restore_fpu(current) if it used math before, else
// init_fpu(); current->flags |= PF_USEDFPU. Taken from user or kernel mode alike.
void Kernel::math_state_restore() {
  Task& t = current();
  auto& pc = pcpu_[size_t(t.cpu)];
  fn("math_state_restore", "device_not_available", p_.fpu.nm_trap_cycles);
  fpu_stats_.nm_traps++;
  pc.cr0_ts = false;
  if (t.fpu.used_math) {
    fn("restore_fpu", "math_state_restore", p_.fpu.fxrstor_cycles);
    exec(0, line_fills(&t.fpu, 512 / 32, false));
    pc.fpu_regs = t.fpu.saved;
    fpu_stats_.restores++;
  } else {
    fn("init_fpu", "math_state_restore", 20);  // fninit
    t.fpu.used_math = true;
    pc.fpu_regs = t.fpu.saved = {t.pid, 0};
  }
  t.fpu.used_fpu = true;
}

void Kernel::fpu_use(const char* parent) {
  Task& t = current();
  auto& pc = pcpu_[size_t(t.cpu)];
  if (pc.cr0_ts) math_state_restore();
  if (t.fpu.own.owner != 0 && pc.fpu_regs != t.fpu.own) {
    fpu_stats_.corrupted_user++;
    LATSIM_DEBUG(sched, log_who(), "{}: FPU registers hold {}/{}, not its own {}/{}", parent,
                 pc.fpu_regs.owner, pc.fpu_regs.gen, t.fpu.own.owner, t.fpu.own.gen);
  }
  // Its instructions change the registers: the next generation of its values.
  pc.fpu_regs = t.fpu.own = {t.pid, t.fpu.own.gen + 1};
}

bool Kernel::kernel_fpu_preempt_off() const {
  return flavour_.kernel_fpu_preempt_disable || p_.fpu.athlon_patch;
}

// i387.c kernel_fpu_begin: save the current task's registers if it owns them (TS stays
// clear: it owned them), else clts. The routine then loads its own values.
void Kernel::kernel_fpu_begin(const char* parent) {
  current().fpu.kernel_preemptible = current().preempt_count == 0;
  if (kernel_fpu_preempt_off()) preempt_disable({"kernel_fpu_begin", "lock"});
  fn("kernel_fpu_begin", parent, 10);
  Task& t = current();
  if (t.fpu.used_fpu) save_init_fpu(t);
  pcpu_[size_t(t.cpu)].cr0_ts = false;  // clts
  t.fpu.in_kernel_fpu = true;
  t.fpu.kernel_corrupted = false;
  t.fpu.kernel_begin_s = now().to_seconds();
  t.fpu.kernel = {-t.pid, t.fpu.kernel.gen + 1};
  pcpu_[size_t(t.cpu)].fpu_regs = t.fpu.kernel;
  fpu_stats_.kernel_fpu++;
}

// i387.h kernel_fpu_end: stts() (the Athlon patch: then ctx_sw_on()).
void Kernel::kernel_fpu_end(const char* parent) {
  Task& t = current();
  pcpu_[size_t(t.cpu)].cr0_ts = true;
  t.fpu.in_kernel_fpu = false;
  const double held_s = now().to_seconds() - t.fpu.kernel_begin_s;
  fpu_stats_.kernel_fpu_max_us = std::max(fpu_stats_.kernel_fpu_max_us, held_s * 1e6);
  if (t.fpu.kernel_preemptible) {
    fpu_stats_.preemptible_s += held_s;
    fpu_stats_.preemptible_max_us = std::max(fpu_stats_.preemptible_max_us, held_s * 1e6);
  }
  if (kernel_fpu_preempt_off()) preempt_enable({"kernel_fpu_end", "unlock"});
  (void)parent;
}

}  // namespace latsim::kernel
