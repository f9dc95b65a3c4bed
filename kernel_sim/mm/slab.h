#pragma once
// mm/slab.c (2.6.9) cache_reap: per-CPU delayed work on events/N, every REAPTIMEOUT_CPUC
// (2 * HZ) + cpu ticks. It walks cache_chain under cache_chain_sem and, for each cache,
// takes its spinlock with interrupts off and drains this CPU's array_cache
// (drain_array_locked). The caches' descriptors are cold after 2 s, so the walk is
// kernel.slab_caches * (1 + kernel.slab_reap_lines) L2 fills (the lock word's line and
// the rest), and those fills displace other tasks' lines from this CPU's L2. Objects are
// not modelled: free_block/slab_destroy (what the drain and slabs_free reaping free) cost
// nothing here.
#include <cstdint>
#include <deque>
#include "kernel_sim/locks/semaphore.h"
#include "kernel_sim/locks/spinlock.h"

namespace latsim::kernel {

class Kernel;
class Workqueue;

struct SlabStats {
  uint64_t reaps = 0;      // cache_reap runs that walked the chain
  uint64_t reap_busy = 0;  // down_trylock(&cache_chain_sem) failed: re-armed
  uint64_t caches_walked = 0;
  uint64_t line_fills = 0;  // L2/FSB fills of the caches' descriptors
};

class Slab {
 public:
  // kmem_cache_init + cpucache_init: `caches` caches on cache_chain; start_cpu_timer
  // arms each CPU's reap_work on `events` (keventd) HZ + 3 * cpu ticks out.
  Slab(Kernel& k, Workqueue& events);
  const SlabStats& stats() const { return stats_; }

 private:
  // kmem_cache_t with its per-CPU array_cache: the lines cache_reap touches.
  struct KmemCache {
    Spinlock spinlock{"kmem_cache_t.spinlock"};
  };
  void cache_reap();
  void rearm();  // schedule_delayed_work(&__get_cpu_var(reap_work), REAPTIMEOUT_CPUC + cpu)

  Kernel& k_;
  Workqueue& events_;
  std::deque<KmemCache> cache_chain_;  // a deque: Spinlock is not movable
  Semaphore cache_chain_sem_{1, "cache_chain_sem"};
  SlabStats stats_;
};

}  // namespace latsim::kernel
