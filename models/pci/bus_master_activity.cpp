#include "models/pci/bus_master_activity.h"

#include <algorithm>

namespace latsim::pci {

sc_time BurstTrain::burst_end_at(const sc_time& t) const {
  if (!covers(t) || period == SC_ZERO_TIME) return t;
  const uint64_t since = to_ps(t - start);
  const uint64_t k = since / to_ps(period);
  const sc_time burst_start = start + ps(k * to_ps(period));
  sc_time burst_end = burst_start + tenure;
  if (burst_end > end) burst_end = end;
  return t < burst_end ? burst_end : t;
}

BurstTrain BurstTrain::spread(int master, sc_time start, sc_time end, uint32_t bursts,
                              sc_time tenure, uint64_t bytes, bool to_memory) {
  BurstTrain t;
  t.master = master;
  t.start = start;
  t.end = end;
  t.period = ps(to_ps(end - start) / std::max(1u, bursts));
  t.tenure = std::min(tenure, t.period);
  t.bytes = bytes;
  t.to_memory = to_memory;
  return t;
}

}  // namespace latsim::pci
