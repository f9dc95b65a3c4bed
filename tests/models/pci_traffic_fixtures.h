#pragma once
// Test fixtures for bus-master traffic on the PCI model: a listener that records
// every announced and deferred burst train, and a target that holds each cycle
// in wait states (a pre-2.1 target whose FIFO is full, say).
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>
#include <vector>
#include "models/pci/pci_bus.h"

namespace latsim::testing {

struct TrainLog : pci::MasterTrafficListener {
  std::vector<pci::BurstTrain> trains;
  std::vector<sc_core::sc_time> announced_at;
  std::vector<pci::BurstTrain> deferred;  // trains pushed back by a held bus, as moved
  void master_traffic(const pci::BurstTrain& t) override {
    trains.push_back(t);
    announced_at.push_back(sc_core::sc_time_stamp());
  }
  void master_traffic_deferred(const pci::BurstTrain&, const pci::BurstTrain& after) override {
    deferred.push_back(after);
  }
};

struct HoldingTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<HoldingTarget> socket;
  sc_core::sc_time hold;
  HoldingTarget(sc_core::sc_module_name n, sc_core::sc_time h)
      : sc_module(n), socket("socket"), hold(h) {
    socket.register_b_transport(this, &HoldingTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    delay += hold;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

}  // namespace latsim::testing
