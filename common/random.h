#pragma once
// Deterministic randomness: one generator per component (device model, kernel
// subsystem, workload), seeded from the scenario seed and the component's name, with
// our own distributions (std::*_distribution output differs between standard
// libraries).
#include <cmath>
#include <cstdint>
#include <string_view>

namespace latsim {

class Rng {
 public:
  Rng(uint64_t seed, std::string_view component) : s_(seed ^ fnv1a(component)) { next(); }
  uint64_t next() {  // splitmix64
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }  // [0,1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  // Exponential variate of the given mean by inversion: -log(1-u), u in [0,1), so
  // the argument is in (0,1] and the result finite.
  double exponential(double mean) { return -mean * std::log(1.0 - uniform()); }

  static uint64_t fnv1a(std::string_view s) {
    uint64_t h = 1469598103934665603ull;
    for (char c : s) h = (h ^ uint8_t(c)) * 1099511628211ull;
    return h;
  }

 private:
  uint64_t s_;
};

}  // namespace latsim
