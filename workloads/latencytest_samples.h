#pragma once
// latencytest's per-sample figures for its plot (the 2004 tool drew every sample:
// scheduling latency and CPU loop time against the fragment and buffer lines),
// reduced to columns of equal simulated time holding the min and max of their
// samples: the envelope a plot draws, in memory fixed by the column count.
#include <cstdint>
#include <string>
#include <vector>

namespace latsim::workloads {

struct LatencytestSamples {
  struct Column {
    float write_min = 0, write_max = 0, cpu_min = 0, cpu_max = 0;
    uint32_t n = 0;  // samples in the column
  };
  struct Phase {
    std::string label;  // as the tool's table names it ("dsk wrt")
    double start_s, stop_s;
  };

  std::string task;
  double fragment_ms = 0;       // nominal write-to-write period
  int fragments = 0;            // fragments in the buffer: buffer latency = fragments x fragment_ms
  double cpu_ms = 0;            // nominal CPU loop
  double from_s = 0, to_s = 0;  // the span the columns cover
  std::vector<Column> columns;
  std::vector<Phase> phases;
  uint64_t samples = 0;

  LatencytestSamples(double from, double to, size_t ncolumns)
      : from_s(from), to_s(to), columns(ncolumns) {}
  void add(double t_s, double write_ms, double cpu_ms);
};

}  // namespace latsim::workloads
