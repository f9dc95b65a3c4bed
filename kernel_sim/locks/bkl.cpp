// lib/kernel_lock.c (2.6.9) and include/linux/smp_lock.h: the big kernel lock is
// a spinlock counted per task (lock_depth, -1 = not held); schedule() drops it
// for a sleeper (release_kernel_lock) and retakes it after the switch
// (reacquire_kernel_lock), spinning if another CPU took it meanwhile.
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

// The depth counts only once the lock is held: on -rt taking it may sleep, and the
// schedule() that sleeps must not drop a BKL its task does not hold yet.
void Kernel::lock_kernel(const char* parent) {
  Task& t = current();
  fn("lock_kernel", parent, 20);
  const int depth = t.lock_depth + 1;
  if (depth == 0) {
    bkl_cause_ = "BKL";
    bkl_caller_ = parent;
    spin_lock(kernel_flag_, "lock_kernel");
  }
  t.lock_depth = depth;
}

void Kernel::unlock_kernel(const CodeSite& site) {
  Task& t = current();
  if (--t.lock_depth < 0) spin_unlock(kernel_flag_, site);
}

// put_kernel_lock: _raw_spin_unlock + preempt_enable_no_resched.
void Kernel::release_kernel_lock(Task* prev) {
  if (prev->lock_depth < 0) return;
  if (sleeping_lock(kernel_flag_)) return rt_spin_unlock(kernel_flag_, {"schedule", "unlock"});
  lock_released(kernel_flag_);
  kernel_flag_.released_at(now());
  sub_preempt_count(PREEMPT_OFFSET, {"schedule", "unlock"});
}

// get_kernel_lock: preempt_disable + _raw_spin_lock (it spins against the holder).
// On -rt the retake may sleep: __reacquire_kernel_lock hides the depth meanwhile, so the
// schedule() it sleeps in does not drop the BKL again.
void Kernel::reacquire_kernel_lock(Task* t) {
  if (t->lock_depth < 0) return;
  bkl_cause_ = "reacqBKL";
  const int depth = t->lock_depth;
  t->lock_depth = -1;
  spin_lock(kernel_flag_, "reacquire_kernel_lock");
  t->lock_depth = depth;
}

}  // namespace latsim::kernel
