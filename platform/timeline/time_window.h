#pragma once
// The stretch of simulated time a timeline or VCD covers: `12.3s..12.4s`, or
// everything (an empty window).
#include <cstdint>
#include <optional>
#include <string>
#include <systemc>

namespace latsim::platform::timeline {

struct TimeWindow {
  uint64_t from_ps = 0;
  uint64_t to_ps = UINT64_MAX;
  bool contains(uint64_t ps) const { return ps >= from_ps && ps <= to_ps; }
};

inline uint64_t to_ps(const sc_core::sc_time& t) {
  // The resolution is fixed once time is in use; building sc_time(1 ps) on every
  // event showed in the timeline's profile.
  static const uint64_t kPs = sc_core::sc_time(1, sc_core::SC_PS).value();
  return t.value() / kPs;
}

// "A..B" with times as the scenario writes them (12.3s, 500ms, 250us); "" = all.
// Throws std::invalid_argument with the accepted syntax on a bad value.
TimeWindow parse_window(const std::string& text);
// The window of `span` centred on `t` (clamped at 0): the trigger "around the maximum".
TimeWindow window_around(uint64_t t_ps, uint64_t span_ps);
// A span such as 100ms (the trigger syntax `max:100ms`), in picoseconds.
uint64_t parse_span_ps(const std::string& text);

// outputs.timeline_window: "" (all), "A..B", or "max:SPAN" (SPAN around the longest
// critical section, which only a run can tell). Throws std::invalid_argument.
struct WindowSpec {
  TimeWindow fixed;            // "" and A..B
  uint64_t around_max_ps = 0;  // max:SPAN's span; 0: `fixed` holds
};
WindowSpec parse_window_spec(const std::string& text);

}  // namespace latsim::platform::timeline
