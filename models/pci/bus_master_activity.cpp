#include "models/pci/bus_master_activity.h"

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

}  // namespace latsim::pci
