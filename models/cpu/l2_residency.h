#pragma once
// Which of a code path's cache lines are still in the (unified, 256 KiB) L2
// when it runs again: a line survives if the lines fetched since it was last
// used have not displaced it. With random replacement over `lines` lines, the
// chance a line is gone after F fetches is 1 - exp(-F / lines).
#include <cmath>
#include <cstdint>
#include <unordered_map>

namespace latsim::cpu {

class L2Residency {
 public:
  explicit L2Residency(uint64_t lines) : lines_(double(lines)) {}

  // `footprint` lines of object `key` are touched now, `fetched` lines having
  // been fetched by this CPU so far: how many of them miss. Fractions carry
  // over to the next touch so the long-run average is exact and deterministic.
  uint64_t touch(const void* key, uint64_t footprint, uint64_t fetched) {
    Entry& e = map_[key];
    const double gone = e.seen ? 1.0 - std::exp(-double(fetched - e.at) / lines_) : 1.0;
    const double expected = double(footprint) * gone + e.carry;
    const uint64_t n = uint64_t(expected);
    e.carry = expected - double(n);
    e.at = fetched + n;
    e.seen = true;
    return n;
  }

 private:
  struct Entry {
    uint64_t at = 0;
    double carry = 0;
    bool seen = false;
  };
  double lines_;
  std::unordered_map<const void*, Entry> map_;
};

}  // namespace latsim::cpu
