#pragma once
// include/linux/wait.h and asm-i386/semaphore.h: sleeping waits. A wait queue
// is a list of sleeping tasks under its own spinlock; a semaphore a count and
// a wait queue (down() sleeps while the count is exhausted).
#include <deque>
#include "kernel_sim/locks/spinlock.h"

namespace latsim::kernel {

struct WaitQueue {
  Spinlock lock{"wait_queue_head_t.lock", true};
  std::deque<Task*> tasks;
};

struct Semaphore {
  explicit Semaphore(int n = 1, const char* nm = "semaphore") : count(n), name(nm) {}
  int count;
  const char* name;
  WaitQueue wait;
  uint64_t downs = 0, sleeps = 0;
};

}  // namespace latsim::kernel
