#pragma once
// The FPU's lazy switching and the kernel's MMX routines: the kernel.fpu.* keys.
#include <cstdint>
#include "common/params.h"

namespace latsim::kernel {

struct I387Params {
  // CONFIG_MK7 (CONFIG_X86_USE_3DNOW): clear_page, copy_page and memcpy of 512 bytes or
  // more run arch/i386/lib/mmx.c's fast_clear_page, fast_copy_page and _mmx_memcpy
  // between kernel_fpu_begin() and kernel_fpu_end(). false: the generic rep stos/movs.
  bool mmx_routines = false;
  // Robert Love's 2001 Athlon patch for the 2.4 preempt patch: kernel_fpu_begin() does
  // ctx_sw_off(), kernel_fpu_end() ctx_sw_on() (2.6's i387.h has it built in).
  bool athlon_patch = false;
  // Assumptions (no K7 latency table at hand): fxsave/fxrstor move the 512-byte image,
  // 16 lines of 32 bytes, microcoded at about 6 cycles a line.
  uint32_t fxsave_cycles = 100;
  uint32_t fxrstor_cycles = 100;
  // Assumption: device_not_available's exception entry through the IDT gate, SAVE_ALL,
  // the CR0.EM test and the iret (entry.S), as an interrupt's entry and exit.
  uint32_t nm_trap_cycles = 200;
  // Counted from arch/i386/lib/mmx.c (K7 versions), one instruction a cycle: a 64-byte
  // iteration of fast_clear_page (8 movntq, add, loop) and of fast_copy_page and
  // _mmx_memcpy (prefetch, 8 movq loads, 8 movntq/movq stores, 2 adds, loop). The
  // memory time is the lines' misses, charged by the bus model.
  uint32_t clear_cycles_per_64 = 10;
  uint32_t copy_cycles_per_64 = 20;
};

// kernel.fpu.*, paths under "kernel.fpu." (arch/i387.cpp).
params::Table<I387Params> i387_keys();

}  // namespace latsim::kernel
