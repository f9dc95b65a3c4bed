// arch/i386/lib/mmx.c (CONFIG_MK7, K7 versions): fast_clear_page, fast_copy_page and
// _mmx_memcpy run between kernel_fpu_begin() and kernel_fpu_end(); in an interrupt
// (in_interrupt()) and for a memcpy under 512 bytes (string.h __memcpy3d) the generic
// routine runs instead. The loop runs in 512-byte steps: a preemption can fall between
// any two, and each step uses the registers the routine loaded.
#include <algorithm>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

// After a step: an MMX instruction with TS set traps (math_state_restore loads the
// task's own image into the registers the loop was using); registers that are not the
// routine's any more are counted once per call. A copy loads them afresh each iteration.
void Kernel::mmx_check(Task& t, bool loads) {
  auto& pc = pcpu_[size_t(t.cpu)];
  if (pc.cr0_ts) math_state_restore();
  if (pc.fpu_regs != t.fpu.kernel && !t.fpu.kernel_corrupted) {
    t.fpu.kernel_corrupted = true;
    fpu_stats_.corrupted_kernel++;
    LATSIM_DEBUG(sched, log_who(), "MMX registers hold {}/{}, not the kernel's {}/{}",
                 pc.fpu_regs.owner, pc.fpu_regs.gen, t.fpu.kernel.owner, t.fpu.kernel.gen);
  }
  if (loads) pc.fpu_regs = t.fpu.kernel;
}

void Kernel::mmx_loop(const char* name, const char* parent, uint64_t bytes, uint32_t cycles_per_64,
                      bool loads) {
  mcount(name, parent);
  kernel_fpu_begin(name);
  Task& t = current();
  for (uint64_t done = 0; done < bytes; done += 512) {
    const uint64_t step = std::min<uint64_t>(512, bytes - done);
    exec((step + 63) / 64 * cycles_per_64, (step + 31) / 32);  // its lines stream past
    mmx_check(t, loads);
  }
  fpu_stats_.kernel_fpu_bytes += bytes;
  kernel_fpu_end(name);
}

// mmx_clear_page: in_interrupt() ? slow_zero_page : fast_clear_page.
bool Kernel::mmx_clear_page(const char* parent) {
  if (!p_.fpu.mmx_routines || in_interrupt()) return false;
  mmx_loop("fast_clear_page", parent, 4096, p_.fpu.clear_cycles_per_64, false);
  return true;
}

// mmx_copy_page: in_interrupt() ? slow_copy_page : fast_copy_page.
bool Kernel::mmx_copy_page(const char* parent) {
  if (!p_.fpu.mmx_routines || in_interrupt()) return false;
  mmx_loop("fast_copy_page", parent, 4096, p_.fpu.copy_cycles_per_64, true);
  return true;
}

// __memcpy3d: len < 512 ? __memcpy : _mmx_memcpy (which falls back in an interrupt).
bool Kernel::mmx_memcpy(uint64_t bytes, const char* parent) {
  if (!p_.fpu.mmx_routines || bytes < 512 || in_interrupt()) return false;
  mmx_loop("_mmx_memcpy", parent, bytes, p_.fpu.copy_cycles_per_64, true);
  return true;
}

}  // namespace latsim::kernel
