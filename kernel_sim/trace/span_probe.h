#pragma once
// Durations between two traced functions, over every critical section, not only
// the kept traces: how the author read "mark_offset_tsc -> do_timer takes 14-15 us"
// (CALIBRATION O5) or "__modify_IO_APIC_irq +0.014 ms" (O6) off many traces. A span
// "A-B" runs from the first mcount of A to the next mcount of B on that CPU; a span
// "A" is A's step, to the next mcount (or the section's end), as a trace's +delta.
#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

namespace latsim::kernel {

struct SpanStats {
  std::string name;  // "A-B" or "A"
  uint64_t count = 0;
  double median_us = 0, p90_us = 0, max_us = 0;
};

class SpanProbe {
 public:
  // `spec`: comma-separated spans, e.g. "mark_offset_tsc-do_timer,__modify_IO_APIC_irq".
  SpanProbe(int ncpus, const std::string& spec);
  bool empty() const { return spans_.empty(); }
  void mcount(int cpu, sc_core::sc_time now, const char* fn);
  void section_end(int cpu, sc_core::sc_time now);  // an open span ends (step) or is dropped
  std::vector<SpanStats> stats() const;

 private:
  struct Span {
    std::string from, to;  // to empty: the step to the next entry
    std::vector<uint64_t> ps;
    std::vector<bool> open;
    std::vector<sc_core::sc_time> t0;
  };
  static void close(Span& s, int cpu, sc_core::sc_time now);
  std::vector<Span> spans_;
};

// Throws std::invalid_argument with the offending span if `spec` is malformed.
void check_span_spec(const std::string& spec);

}  // namespace latsim::kernel
