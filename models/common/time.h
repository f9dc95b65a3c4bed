#pragma once
// Time helpers: clocks are given by their frequency; sc_time resolution is 1 ps.
#include <cmath>
#include <cstdint>
#include <systemc>

namespace latsim {

using sc_core::SC_MS;
using sc_core::SC_NS;
using sc_core::SC_PS;
using sc_core::SC_SEC;
using sc_core::sc_time;
using sc_core::SC_US;
using sc_core::SC_ZERO_TIME;

// Period of a clock of `mhz` MHz, rounded to the picosecond.
// (At 1 ps resolution sc_time(v, SC_PS) of an integral v is v ps: from_value skips the
// constructor's unit scaling, which costs on hot paths.)
inline sc_time period_of_mhz(double mhz) {
  return sc_time::from_value(uint64_t(std::round(1e6 / mhz)));
}

// Time to move `bytes` at `mb_per_s` (10^6 bytes per second, as datasheets count).
inline sc_time transfer_time(uint64_t bytes, double mb_per_s) {
  return sc_time::from_value(uint64_t(std::round(double(bytes) * 1e6 / mb_per_s)));
}

inline double to_us(const sc_time& t) { return t.to_seconds() * 1e6; }

// Picoseconds as an integer (sc_time's own unit at our resolution).
inline uint64_t to_ps(const sc_time& t) { return t.value(); }
inline sc_time ps(uint64_t v) { return sc_time::from_value(v); }

}  // namespace latsim
