#pragma once
// The P6 APIC bus as a message router: the IO-APIC's messages reach the local
// APICs attached here, by physical APIC ID (0xFF = broadcast) or by logical
// destination in the flat model (MDA & LDR[31:24] != 0; cluster DFR not modelled).
//
// Lowest-priority arbitration is simplified: among the addressed APICs, the one
// with the lowest TPR wins, ties going to the lowest APIC ID (LowestId) or rotating
// after the previous winner (RoundRobin, what P6 arbitration-ID rotation amounts to
// when all TPRs are equal). Real P6 arbitration also weighs ISR/IRR and the focus processor.
#include <cstdint>
#include <map>
#include "common/params.h"
#include "models/irq/irq_line.h"

namespace latsim::cpu {
class LocalApic;
}

namespace latsim::irq {

enum class LowestPriorityPolicy { LowestId, RoundRobin };

// The platform.apic_bus.* knobs (apic_bus_keys).
struct ApicBusParams {
  // P6 rotates the arbitration ID after every message: equal TPRs take turns.
  LowestPriorityPolicy lowest_priority = LowestPriorityPolicy::RoundRobin;
};
params::Table<ApicBusParams> apic_bus_keys();

class ApicBusHub : public ApicBus {
 public:
  using LowestPriorityPolicy = irq::LowestPriorityPolicy;

  explicit ApicBusHub(const ApicBusParams& p = {}) : policy_(p.lowest_priority) {}
  ApicBusHub(const ApicBusHub&) = delete;
  ApicBusHub& operator=(const ApicBusHub&) = delete;

  void attach(unsigned apic_id, cpu::LocalApic& apic);

  void deliver(unsigned dest_apic_id, unsigned vector, DeliveryMode mode) override;
  void deliver_logical(unsigned mda, unsigned vector, DeliveryMode mode) override;

  uint64_t messages() const { return messages_; }
  uint64_t dropped() const { return dropped_; }  // no APIC matched the destination

 private:
  template <class Match>
  void route(Match match, unsigned vector, DeliveryMode mode);

  LowestPriorityPolicy policy_;
  std::map<unsigned, cpu::LocalApic*> apics_;  // ordered by APIC ID
  unsigned last_winner_ = ~0u;
  uint64_t messages_ = 0, dropped_ = 0;
};

}  // namespace latsim::irq
