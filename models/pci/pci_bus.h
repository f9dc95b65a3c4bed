#pragma once
// 33 MHz, 32-bit PCI bus: address decode to targets, the central arbiter, and
// the analytic burst trains of bus masters. The host bridge is master 0; each of
// its transactions holds the bus from address phase to turnaround, and a target
// without the PCI 2.1 latency rule can stretch that hold without bound.
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <functional>
#include <map>
#include <systemc>
#include <tlm>
#include <vector>
#include "models/common/address_map.h"
#include "models/common/probe.h"
#include "models/common/time.h"
#include "models/pci/bus_master_activity.h"
#include "models/pci/latency_timer.h"
#include "models/pci/pci_arbiter.h"

namespace latsim::pci {

// Who else must hear of master traffic (the host bridge, for DRAM and holdoff).
class MasterTrafficListener {
 public:
  virtual ~MasterTrafficListener() = default;
  virtual void master_traffic(const BurstTrain& train) = 0;
  // A train announced earlier now starts later: a transaction held the bus first.
  virtual void master_traffic_deferred(const BurstTrain& /*before*/, const BurstTrain& /*after*/) {}
};

// A master told that its announced train was pushed back (before, after).
using DeferHandler = std::function<void(const BurstTrain&, const BurstTrain&)>;

struct PciStats {
  sc_time busy;  // sum of all bus-master tenures
  std::map<int, sc_time> master_busy;
  sc_time host_busy;            // host-bridge transactions, address phase to turnaround
  sc_time longest_transaction;  // one host-bridge transaction (a held write, say)
  uint64_t retries = 0;         // transactions a target terminated with Retry
  sc_time longest_cpu_wait;
  uint64_t cpu_transactions = 0;
  sc_time cpu_wait_total;
};

class PciBus : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<PciBus> host_socket;                  // from the host bridge
  tlm_utils::multi_passthrough_initiator_socket<PciBus> target_socket;  // to PCI targets

  PciBus(sc_core::sc_module_name name, double mhz, int latency_timer_clocks,
         ArbitrationPolicy policy);

  sc_time clock() const { return clk_; }
  // Claim [base, base+size) for target_socket index `port`.
  void map(uint64_t base, uint64_t size, int port, const std::string& name,
           int initial_latency_clocks = 2, uint64_t target_offset = 0);

  // A master announces its next train of bursts; listeners are told at once. A
  // train not yet started when a host transaction takes the bus, and starting
  // before that transaction ends, is deferred to its end and `on_defer` is called.
  int add_master(const std::string& name, DeferHandler on_defer = {});  // returns 1..
  void announce(const BurstTrain& train);
  void add_listener(MasterTrafficListener& l) { listeners_.push_back(&l); }

  // Earliest time >= t at which the host bridge holds GNT#.
  sc_time host_grant_time(sc_time t) const;
  // Earliest time >= t at which no host-bridge transaction holds the bus: a master
  // whose REQ# rises meanwhile gets GNT# only when the transaction ends.
  sc_time free_at(sc_time t) const;
  void set_latency_timer_enabled(bool on) { latency_timer_enabled_ = on; }
  LatencyTimer& latency_timer() { return lt_; }

  const PciStats& stats() const { return stats_; }
  double utilization(sc_time over) const;
  const std::vector<std::string>& master_names() const { return masters_; }
  void set_probe(SignalProbe* p) { probe_ = p; }

 private:
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  void prune(sc_time now);
  void hold(sc_time from, sc_time to);

  sc_time clk_;
  LatencyTimer lt_;
  PciArbiter arbiter_;
  bool latency_timer_enabled_ = true;
  AddressMap map_;
  std::vector<BurstTrain> trains_;
  std::vector<std::pair<sc_time, sc_time>> holds_;  // host transactions [start, end)
  std::vector<MasterTrafficListener*> listeners_;
  std::vector<std::string> masters_{"host-bridge"};
  std::vector<DeferHandler> on_defer_{DeferHandler{}};
  PciStats stats_;
  SignalProbe* probe_ = nullptr;
};

}  // namespace latsim::pci
