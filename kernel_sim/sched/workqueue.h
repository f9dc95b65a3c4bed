#pragma once
// kernel/workqueue.c (2.6.9): create_workqueue(name) starts a worker_thread per CPU
// (name/N, nice -10, bound to N); queue_work puts a work item on this CPU's list and
// wakes its worker; queue_delayed_work_on arms a timer on a CPU's base whose
// delayed_work_timer_fn queues the work there. Shared by kblockd and events (keventd).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace latsim::kernel {

class Kernel;
struct Task;

class Workqueue {
 public:
  Workqueue(Kernel& k, const std::string& name);
  // queue_work: this CPU's worker runs `work`; a work item already pending (`*pending`,
  // work->pending) is not queued again; run_workqueue clears the bit before running it.
  void queue_work(bool* pending, std::function<void()> work);
  // queue_delayed_work_on: add_timer_on(cpu) `delay` ticks out; the timer queues the work.
  void queue_delayed_work_on(int cpu, uint64_t delay, std::function<void()> work);
  Task* worker(int cpu) const { return workers_[size_t(cpu)]; }

 private:
  void worker_thread(int cpu);
  void queue_on(int cpu, std::function<void()> work);  // __queue_work

  Kernel& k_;
  std::vector<Task*> workers_;                            // name/N
  std::vector<std::vector<std::function<void()>>> work_;  // each CPU's worklist
};

}  // namespace latsim::kernel
