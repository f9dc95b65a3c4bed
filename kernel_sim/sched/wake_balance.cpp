// kernel/sched.c (2.6.9-rc1) try_to_wake_up, CONFIG_SMP: where a sleeping task is
// queued when another CPU wakes it. One sched_domain (SD_CPU_INIT, include/linux/
// topology.h) spans the CPUs, with SD_WAKE_AFFINE | SD_WAKE_BALANCE, imbalance_pct
// 125 and cache_hot_time 2.5 ms. Loads are in SCHED_LOAD_SCALE units.
#include <algorithm>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
constexpr uint64_t SCHED_LOAD_SCALE = 128;  // kernel/sched.c
}  // namespace

// task_hot(p, rq->timestamp_last_tick, sd): p left a CPU less than cache_hot_time ago.
// 2.6.9-rc1 computes now - p->timestamp in unsigned long long: when p switched out
// after its CPU's last tick the difference wraps to a huge value and p looks cold.
bool Kernel::task_hot(const Task* p, sc_time now) const {
  if (now < p->last_ran) return !p_.task_hot_underflow_bug;  // the long long cast: negative, hot
  return now - p->last_ran < sc_time(p_.cache_hot_time_us, sc_core::SC_US);
}

int Kernel::wake_cpu(const Task* p, int cpu, int this_cpu) const {
  if (cpu == this_cpu || !(p->cpus_allowed & (1u << this_cpu))) return cpu;
  const Runqueue& rq = rq_[size_t(cpu)];
  const Runqueue& this_rq = rq_[size_t(this_cpu)];
  if (p_.wake_balance == "nr_running" || !flavour_.o1_scheduler)  // the model's earlier simple rule
    return this_rq.nr_running < rq.nr_running ? this_cpu : cpu;
  // source_load: a low guess of the task's CPU; target_load: a high guess of this one.
  const uint64_t load = std::min(rq.cpu_load, uint64_t(rq.nr_running) * SCHED_LOAD_SCALE);
  const uint64_t this_load =
      std::max(this_rq.cpu_load, uint64_t(this_rq.nr_running) * SCHED_LOAD_SCALE);
  // "Don't pull the task off an idle CPU to a busy one".
  if (load < SCHED_LOAD_SCALE / 2 && this_load > SCHED_LOAD_SCALE / 2) return cpu;
  // SD_WAKE_AFFINE: p is cache-cold; SD_WAKE_BALANCE: half the imbalance_pct margin.
  const uint64_t pct = uint64_t(p_.balance_imbalance_pct);
  const uint64_t imbalance = pct + (pct - 100) / 2;
  if (!task_hot(p, rq.timestamp_last_tick) || imbalance * this_load <= 100 * load) return this_cpu;
  return cpu;
}

}  // namespace latsim::kernel
