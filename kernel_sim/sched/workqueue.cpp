#include "kernel_sim/sched/workqueue.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

Workqueue::Workqueue(Kernel& k, const std::string& name) : k_(k) {
  // create_workqueue: create_workqueue_thread for each online CPU, kthread_bind'd to it;
  // worker_thread sets its own nice -10 (set_user_nice(current, -10)).
  for (int c = 0; c < k_.ncpus(); ++c) {
    Task* t = k_.create_task(
        name + "/" + std::to_string(c), [this, c] { worker_thread(c); }, Policy::Normal, -10, c,
        1u << c);
    t->mm = 0;  // a kernel thread
    workers_.push_back(t);
  }
  work_.resize(workers_.size());
}

void Workqueue::queue_on(int cpu, std::function<void()> work) {
  work_[size_t(cpu)].push_back(std::move(work));
  k_.try_to_wake_up(workers_[size_t(cpu)], "__queue_work");
}

void Workqueue::queue_work(bool* pending, std::function<void()> work) {
  if (*pending) return;  // test_and_set_bit(0, &work->pending): queued already
  *pending = true;
  queue_on(k_.smp_processor_id(), [pending, w = std::move(work)] {
    *pending = false;  // run_workqueue: clear_bit(0, &work->pending) before work->func
    w();
  });
}

void Workqueue::queue_delayed_work_on(int cpu, uint64_t delay, std::function<void()> work) {
  // delayed_work_timer_fn runs in that CPU's timer softirq and __queue_work's there.
  k_.timers(cpu).add(k_.local_ticks(cpu) + delay,
                     [this, cpu, w = std::move(work)]() mutable { queue_on(cpu, std::move(w)); });
}

// worker_thread: sleep until work is queued, run it (run_workqueue), sleep again.
void Workqueue::worker_thread(int cpu) {
  for (;;) {
    k_.set_current_state(TASK_INTERRUPTIBLE);
    while (work_[size_t(cpu)].empty()) {
      k_.schedule("worker_thread");
      k_.set_current_state(TASK_INTERRUPTIBLE);
    }
    k_.set_current_state(TASK_RUNNING);
    auto work = std::move(work_[size_t(cpu)]);
    work_[size_t(cpu)].clear();
    k_.fn("run_workqueue", "worker_thread", 60, 1);
    for (auto& w : work) w();
  }
}

}  // namespace latsim::kernel
