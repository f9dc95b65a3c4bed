#pragma once
// How figures are rounded in metrics.json: to the thousandth of their unit, times in
// µs to the nanosecond.
#include <cmath>

namespace latsim {

inline double round3(double v) { return std::round(v * 1000.0) / 1000.0; }
// A SystemC time in µs, to the ns.
template <class Time>
double us(const Time& t) {
  return std::round(t.to_seconds() * 1e9) / 1e3;
}

}  // namespace latsim
