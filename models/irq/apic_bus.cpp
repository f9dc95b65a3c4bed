#include "models/irq/apic_bus.h"

#include <algorithm>
#include <vector>
#include "models/common/knobs.h"
#include "models/cpu/local_apic.h"

namespace latsim::irq {

params::Table<ApicBusParams> apic_bus_keys() {
  using namespace params;
  return {
      knobs::bind_enum(
          with_source(of_type(ValueType::Enum, "lowest_priority",
                              "lowest-priority arbitration among equal TPRs: rotate (P6 "
                              "arbitration IDs rotate after each message) or lowest_id (always "
                              "the lowest APIC ID)"),
                      "Intel P6: the APIC bus arbitration ID rotates after every message"),
          &ApicBusParams::lowest_priority,
          {{LowestPriorityPolicy::RoundRobin, "rotate"},
           {LowestPriorityPolicy::LowestId, "lowest_id"}}),
  };
}

void ApicBusHub::attach(unsigned apic_id, cpu::LocalApic& apic) { apics_[apic_id] = &apic; }

void ApicBusHub::deliver(unsigned dest, unsigned vector, DeliveryMode mode) {
  route([dest](unsigned id, const cpu::LocalApic&) { return dest == 0xFF || id == dest; }, vector,
        mode);
}

void ApicBusHub::deliver_logical(unsigned mda, unsigned vector, DeliveryMode mode) {
  route([mda](unsigned, const cpu::LocalApic& a) { return (a.logical_id() & mda) != 0; }, vector,
        mode);
}

template <class Match>
void ApicBusHub::route(Match match, unsigned vector, DeliveryMode mode) {
  ++messages_;
  std::vector<std::pair<unsigned, cpu::LocalApic*>> hit;
  for (auto& [id, apic] : apics_)
    if (match(id, *apic)) hit.emplace_back(id, apic);
  if (hit.empty()) {
    ++dropped_;
    return;
  }
  if (mode != DeliveryMode::LowestPriority) {
    for (auto& h : hit) h.second->accept(vector, mode);
    return;
  }
  // Lowest priority: one target, the lowest TPR (simplified arbitration, see header).
  unsigned best_tpr = 0x100;
  for (auto& h : hit) best_tpr = std::min(best_tpr, unsigned(h.second->tpr()));
  std::pair<unsigned, cpu::LocalApic*> win{0, nullptr};
  for (auto& h : hit) {
    if (h.second->tpr() != best_tpr) continue;
    if (!win.second) win = h;  // lowest ID among the lowest TPR
    if (policy_ == LowestPriorityPolicy::RoundRobin && last_winner_ != ~0u &&
        h.first > last_winner_) {
      win = h;  // first ID after the previous winner
      break;
    }
  }
  last_winner_ = win.first;
  win.second->accept(vector, mode);
}

}  // namespace latsim::irq
