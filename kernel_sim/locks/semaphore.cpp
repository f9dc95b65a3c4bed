// kernel/sched.c wait queues and arch/i386/kernel/semaphore.c: a sleeper adds
// itself to the queue, sets its state and calls schedule(); wake_up() wakes it.
#include <algorithm>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

void Kernel::wait_event(WaitQueue& q, const std::function<bool()>& cond, const char* parent) {
  Task* me = &current();
  for (;;) {
    fn("prepare_to_wait", parent, 30);
    const bool f = spin_lock_irqsave(q.lock, "prepare_to_wait");
    if (std::find(q.tasks.begin(), q.tasks.end(), me) == q.tasks.end()) q.tasks.push_back(me);
    set_current_state(TASK_UNINTERRUPTIBLE);
    spin_unlock_irqrestore(q.lock, f, {"prepare_to_wait", "unlock"});
    if (cond()) break;
    schedule(parent);
  }
  set_current_state(TASK_RUNNING);
  fn("finish_wait", parent, 20);
  const bool f = spin_lock_irqsave(q.lock, "finish_wait");
  auto it = std::find(q.tasks.begin(), q.tasks.end(), me);
  if (it != q.tasks.end()) q.tasks.erase(it);
  spin_unlock_irqrestore(q.lock, f, {"finish_wait", "unlock"});
}

void Kernel::wake_up(WaitQueue& q, const char* parent) {
  fn("__wake_up", parent, 30);
  const bool f = spin_lock_irqsave(q.lock, "__wake_up");
  const std::deque<Task*> sleepers =
      q.tasks;  // __wake_up_common: each entry's default_wake_function
  spin_unlock_irqrestore(q.lock, f, {"__wake_up", "unlock"});
  for (Task* t : sleepers) try_to_wake_up(t, "__wake_up_common");
}

void Kernel::down(Semaphore& s, const char* parent) {
  fn("down", parent, 20);
  s.downs++;
  if (s.count > 0) {
    s.count--;
    return;
  }
  s.sleeps++;
  fn("__down", "down", 40);
  wait_event(
      s.wait, [&s] { return s.count > 0; }, "__down");
  s.count--;
}

void Kernel::up(Semaphore& s, const char* parent) {
  fn("up", parent, 20);
  s.count++;
  if (!s.wait.tasks.empty()) {
    fn("__up", "up", 30);
    wake_up(s.wait, "__up");
  }
}

}  // namespace latsim::kernel
