#include "kernel_sim/mm/slab.h"
#include "kernel_sim/kernel.h"
#include "kernel_sim/sched/workqueue.h"

namespace latsim::kernel {

Slab::Slab(Kernel& k, Workqueue& events) : k_(k), events_(events) {
  for (int i = 0; i < k_.params().slab_caches; ++i) cache_chain_.emplace_back();
  // start_cpu_timer: schedule_delayed_work_on(cpu, reap_work, HZ + 3 * cpu).
  for (int c = 0; c < k_.ncpus(); ++c)
    events_.queue_delayed_work_on(c, uint64_t(k_.params().hz + 3 * c), [this] { cache_reap(); });
}

void Slab::rearm() {
  const int c = k_.smp_processor_id();
  k_.fn("schedule_delayed_work", "cache_reap", 60, 1);  // add_timer on this CPU's base
  events_.queue_delayed_work_on(c, uint64_t(2 * k_.params().hz + c), [this] { cache_reap(); });
}

void Slab::cache_reap() {
  k_.fn("cache_reap", "worker_thread", 80, 2);
  k_.exec(20);                        // down_trylock(&cache_chain_sem): inline, no mcount
  if (cache_chain_sem_.count <= 0) {  // kmem_cache_create/destroy holds it: try again later
    stats_.reap_busy++;
    rearm();
    return;
  }
  cache_chain_sem_.count--;
  stats_.reaps++;
  LATSIM_DEBUG(mm, k_.log_who(), "cache_reap over {} caches", cache_chain_.size());
  const uint64_t lines = uint64_t(k_.params().slab_reap_lines);
  for (KmemCache& c : cache_chain_) {  // list_for_each(walk, &cache_chain)
    k_.spin_lock_irq(c.spinlock, "cache_reap");
    // drain_array_locked(searchp, ac_data(searchp), 0) and the next_reap/free_touched
    // checks: this cache's descriptor and array_cache lines, written (the lock, touched).
    const uint64_t fills = k_.line_fills(&c, lines, true);
    stats_.caches_walked++;
    stats_.line_fills += fills;
    k_.fn("drain_array_locked", "cache_reap", 40, 1, fills);
    k_.spin_unlock_irq(c.spinlock, {"cache_reap", "next_unlock"});
  }
  k_.up(cache_chain_sem_, "cache_reap");  // drain_remote_pages: NUMA only, nothing on i386
  rearm();
}

}  // namespace latsim::kernel
