#pragma once
// Which of a code path's cache lines are still in the (unified, 256 KiB) L2
// when it runs again: a line survives if the lines fetched since it was last
// used have not displaced it. With random replacement over `lines` lines, the
// chance a line is gone after F fetches is 1 - exp(-F / lines).
// Two ways to count them: `mean` (the expected number, fractions carried to the next
// touch: exact on average, but every touch after the same gap misses alike) or
// `sampled` (each line survives or not on its own draw, as random replacement does:
// now and then all of an object's lines are gone, the tail a worst case is made of).
#include <absl/container/flat_hash_map.h>
#include <array>
#include <cmath>
#include <cstdint>
#include "common/random.h"
#include "models/cpu/object_keys.h"

namespace latsim::cpu {

class L2Residency {
 public:
  explicit L2Residency(uint64_t lines) : lines_(double(lines)) {}

  // Count misses line by line with `rng` (nullptr: the expected number, the default).
  void sample_with(Rng* rng) { rng_ = rng; }

  // `footprint` lines of object `key` are touched now, `fetched` lines having
  // been fetched by this CPU so far: how many of them miss. Fractions carry
  // over to the next touch so the long-run average is exact and deterministic.
  uint64_t touch(const void* key, uint64_t footprint, uint64_t fetched) {
    Entry& e = map_[key];
    const double gone = e.seen ? gone_after(fetched - e.at) : 1.0;
    uint64_t n = 0;
    if (rng_ && footprint <= kMaxSampled) {
      for (uint64_t i = 0; i < footprint; ++i) n += rng_->uniform() < gone ? 1 : 0;
    } else {  // the expected number (a large working set's refill is its mean anyway)
      const double expected = double(footprint) * gone + e.carry;
      n = uint64_t(expected);
      e.carry = expected - double(n);
    }
    e.at = fetched + n;
    e.seen = true;
    return n;
  }

  // The object at [begin, end) is freed (object_keys.h).
  void forget(const void* begin, const void* end) { erase_keys_in(map_, begin, end); }
  size_t objects() const { return map_.size(); }  // keys with a history

 private:
  struct Entry {
    uint64_t at = 0;
    double carry = 0;
    bool seen = false;
  };
  static constexpr uint64_t kMaxSampled = 256;  // lines drawn one by one; above: the mean
  // 1 - exp(-F / lines), remembered by F: the same gaps recur, and exp is costly.
  double gone_after(uint64_t fetched) {
    if (fetched == 0) return 0.0;
    Gone& g = gone_[fetched % gone_.size()];
    if (g.fetched != fetched) g = {fetched, 1.0 - std::exp(-double(fetched) / lines_)};
    return g.value;
  }
  struct Gone {
    uint64_t fetched = 0;
    double value = 0;
  };
  std::array<Gone, 1024> gone_{};
  double lines_;
  Rng* rng_ = nullptr;
  absl::flat_hash_map<const void*, Entry> map_;  // looked up on every kernel function
};

}  // namespace latsim::cpu
