#include "models/chipset/host_bridge.h"
#include <algorithm>

namespace latsim::chipset {

HostBridge::HostBridge(sc_core::sc_module_name name, const HostBridgeParams& p, pci::PciBus& pci,
                       Dram& dram)
    : sc_module(name), pci_socket("pci_socket"), p_(p), pci_(pci), dram_(dram) {
  pci_socket.bind(pci_.host_socket);
  pci_.add_listener(*this);
}

void HostBridge::master_traffic(const pci::BurstTrain& train) {
  prune(sc_core::sc_time_stamp());
  trains_.push_back(train);
  changed_.notify(SC_ZERO_TIME);
}

void HostBridge::prune(sc_time now) {
  trains_.erase(std::remove_if(trains_.begin(), trains_.end(),
                               [&](const pci::BurstTrain& t) { return t.end <= now; }),
                trains_.end());
}

sc_time HostBridge::ready_in(const pci::BurstTrain& tr, sc_time t) const {
  if (!tr.covers(t) || !tr.to_memory) return t;
  switch (p_.holdoff) {
    case CpuHoldoff::None:
      return t;
    case CpuHoldoff::SgEntry:
      return tr.end;  // the whole entry goes through before the CPU is let back on
    case CpuHoldoff::Grants: {
      if (tr.period == SC_ZERO_TIME) return tr.end;
      const uint64_t k = to_ps(t - tr.start) / to_ps(tr.period);
      const uint64_t n = uint64_t(std::max(1, p_.holdoff_grants));
      const uint64_t last = (k / n) * n + n - 1;  // last grant of this group
      sc_time group_end = tr.start + ps(last * to_ps(tr.period)) + tr.tenure;
      group_end = std::min(group_end, tr.end);
      return std::max(t, group_end);
    }
    case CpuHoldoff::Rotate:
      return tr.burst_end_at(t);  // priority rotates on every grant
  }
  return t;
}

sc_time HostBridge::cpu_ready(sc_time t) const {
  sc_time r = t;
  for (bool moved = true; moved;) {
    moved = false;
    for (const auto& tr : trains_) {
      sc_time x = ready_in(tr, r);
      if (x > r) r = x, moved = true;
    }
  }
  return r;
}

sc_time HostBridge::next_holdoff(sc_time t) const {
  sc_time best = sc_core::sc_max_time();
  if (p_.holdoff == CpuHoldoff::None) return best;
  for (const auto& tr : trains_) {
    if (!tr.to_memory || tr.end <= t) continue;
    best = std::min(best, tr.start > t ? tr.start : t);
  }
  return best;
}

void HostBridge::cpu_pci_access(tlm::tlm_generic_payload& p) {
  const sc_time now = sc_core::sc_time_stamp();
  const sc_time fsb = cpu_ready(now);
  const sc_time grant = pci_.host_grant_time(fsb + p_.cpu_to_pci);
  if (grant > now) sc_core::wait(grant - now);
  sc_time delay = SC_ZERO_TIME;
  pci_socket->b_transport(p, delay);
  if (delay > SC_ZERO_TIME) sc_core::wait(delay);
}

}  // namespace latsim::chipset
