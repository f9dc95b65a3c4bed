#pragma once
// include/asm-i386/rwlock.h: many readers or one writer; a writer spins until
// the readers on other CPUs are gone, a reader spins while a writer holds it.
#include <systemc>
#include "kernel_sim/locks/spin_wait.h"

namespace latsim::kernel {

struct RwLock {
  explicit RwLock(const char* n = "rwlock") : name(n) {}
  const char* name;
  int readers = 0;
  int writer = -1;                              // CPU holding it for write
  const void* line() const { return &writer; }  // the lock word's cache line (Spinlock::line)
  SpinWait released;
  uint64_t acquisitions = 0, contended = 0;
  sc_core::sc_time spin_total;
};

}  // namespace latsim::kernel
