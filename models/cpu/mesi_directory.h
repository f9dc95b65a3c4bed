#pragma once
// MESI among the CPUs' caches on the P6 bus, per shared object (a kernel variable
// of a few lines): which CPUs hold a valid copy. A CPU that reads an object another
// CPU has written since must fetch it over the FSB (the owner's HITM, an implicit
// writeback); a CPU that writes an object others hold must invalidate their copies
// first (a read-for-ownership, or an invalidate of a Shared line). Either is one FSB
// transaction per line, so it waits behind a bus master as a miss does. Evictions
// are the L2 model's business (l2_residency.h); this only counts coherence traffic.
#include <absl/container/flat_hash_map.h>
#include <cstdint>
#include "models/cpu/object_keys.h"

namespace latsim::cpu {

class MesiDirectory {
 public:
  // CPU `cpu` reads (write=false) or writes `lines` lines of `key`: how many FSB
  // transactions that takes. The first CPU to touch an object pays nothing here
  // (its cold miss is the L2 model's).
  uint64_t access(int cpu, const void* key, uint64_t lines, bool write) {
    const uint32_t me = 1u << unsigned(cpu);
    auto [it, fresh] = valid_.try_emplace(key, me);
    uint32_t& v = it->second;
    if (fresh) return 0;
    uint64_t n = 0;
    if (write) {
      if (v != me) n = lines;  // copies elsewhere: RFO if ours is stale, else invalidate
      v = me;                  // Modified here, Invalid everywhere else
    } else {
      if (!(v & me)) n = lines;  // ours was invalidated by another CPU's write
      v |= me;                   // Shared
    }
    transactions_ += n;
    return n;
  }
  uint64_t transactions() const { return transactions_; }
  // The object at [begin, end) is freed (object_keys.h).
  void forget(const void* begin, const void* end) { erase_keys_in(valid_, begin, end); }
  size_t objects() const { return valid_.size(); }

 private:
  absl::flat_hash_map<const void*, uint32_t> valid_;  // object -> CPUs holding a valid copy
  uint64_t transactions_ = 0;
};

}  // namespace latsim::cpu
