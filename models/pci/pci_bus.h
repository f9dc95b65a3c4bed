#pragma once
// 33 MHz, 32-bit PCI bus: address decode to targets, the central arbiter, and
// the analytic burst trains of bus masters. The host bridge is master 0; each of
// its transactions holds the bus from address phase to turnaround, and a target
// without the PCI 2.1 latency rule can stretch that hold without bound.
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <functional>
#include <map>
#include <set>
#include <systemc>
#include <tlm>
#include <vector>
#include "common/params.h"
#include "models/common/address_map.h"
#include "models/common/probe.h"
#include "models/common/time.h"
#include "models/pci/bus_master_activity.h"
#include "models/pci/latency_timer.h"
#include "models/pci/pci_arbiter.h"
#include "models/pci/pci_config.h"
#include "models/pci/stall_class.h"

namespace latsim::pci {

// The platform.pci.* knobs (pci_bus_keys).
struct PciBusParams {
  double mhz = 33.33;
  int latency_timer = 64;  // clocks; pcibios_set_master's value when the BIOS left < 16
  ArbitrationPolicy arbiter = ArbitrationPolicy::Rotate;
  int width_bits = 32;  // AD bus width: 32, or 64 (REQ64#/ACK64#)
};
params::Table<PciBusParams> pci_bus_keys();

// Who else must hear of master traffic (the host bridge, for DRAM and holdoff).
class MasterTrafficListener {
 public:
  virtual ~MasterTrafficListener() = default;
  virtual void master_traffic(const BurstTrain& train) = 0;
  // A train announced earlier now starts later: a transaction held the bus first.
  virtual void master_traffic_deferred(const BurstTrain& /*before*/, const BurstTrain& /*after*/) {}
};

// A master told that its announced train was pushed back (before, after); it may
// revise `after`'s run_end (what follows the train) before the listeners hear of it.
using DeferHandler = std::function<void(const BurstTrain&, BurstTrain&)>;

struct PciStats {
  sc_time busy;  // sum of all bus-master tenures
  std::map<int, sc_time> master_busy;
  sc_time host_busy;            // host-bridge transactions, address phase to turnaround
  sc_time longest_transaction;  // one host-bridge transaction (a held write, say)
  uint64_t retries = 0;         // transactions a target terminated with Retry
  sc_time longest_cpu_wait;
  uint64_t cpu_transactions = 0;
  sc_time cpu_wait_total;
  std::map<int, sc_time> longest_tenure;  // one bus-master burst (arbitration to idle)
  uint64_t cpu_waits = 0;                 // host transactions whose wait was recorded
  std::vector<uint64_t> cpu_wait_hist;    // counts per kCpuWaitBucketsUs bucket
  uint64_t delayed_latched = 0;           // requests a target latched as delayed transactions
  uint64_t delayed_completed = 0;         // ... and completed on the master's retry
  uint64_t delayed_discarded = 0;         // ... never collected within the discard timer
};

// What the last host transaction's target did: the delay it added and its class.
struct TargetCycle {
  StallClass cls = StallClass::Pci;
  sc_time target_time;  // wait states / Retry latency the target added to the transaction
};
// Upper edges (us, exclusive) of the CPU-wait histogram; the last bucket is open.
inline const std::vector<double>& cpu_wait_buckets_us() {
  static const std::vector<double> b = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000};
  return b;
}

class PciBus : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<PciBus> host_socket;                  // from the host bridge
  tlm_utils::multi_passthrough_initiator_socket<PciBus> target_socket;  // to PCI targets

  explicit PciBus(sc_core::sc_module_name name, const PciBusParams& p = {});

  sc_time clock() const { return clk_; }
  // AD bus width: a burst data phase moves 4 (32-bit) or 8 (64-bit, REQ64#/ACK64#) bytes.
  void set_width_bits(int bits) { bytes_per_clock_ = bits / 8; }
  int bytes_per_clock() const { return bytes_per_clock_; }
  // Claim [base, base+size) for target_socket index `port`.
  void map(uint64_t base, uint64_t size, int port, const std::string& name,
           int initial_latency_clocks = 2, uint64_t target_offset = 0);

  // A master announces its next train of bursts; listeners are told at once. A
  // train not yet started when a host transaction takes the bus, and starting
  // before that transaction ends, is deferred to its end and `on_defer` is called.
  // A master with a configuration header is held to its own Latency Timer, which is
  // set to the bus-wide default here (as the BIOS or pcibios_set_master does);
  // one without is held to the default.
  int add_master(const std::string& name, DeferHandler on_defer = {},
                 PciConfig* config = nullptr);  // returns 1..
  void announce(const BurstTrain& train);
  void add_listener(MasterTrafficListener& l) { listeners_.push_back(&l); }

  // Earliest time >= t at which the host bridge holds GNT#.
  sc_time host_grant_time(sc_time t) const;
  // Earliest time >= t at which no host-bridge transaction holds the bus: a master
  // whose REQ# rises meanwhile gets GNT# only when the transaction ends.
  sc_time free_at(sc_time t) const;
  void set_latency_timer_enabled(bool on) { latency_timer_enabled_ = on; }
  LatencyTimer& latency_timer() { return lt_; }  // the bus-wide default
  // The configuration header of the master called `name` (setpci -s), or null.
  PciConfig* function(const std::string& name) const;

  const PciStats& stats() const { return stats_; }
  double utilization(sc_time over) const;
  const std::vector<std::string>& master_names() const { return masters_; }
  // The transaction b_transport just finished (read it before the next one starts).
  const TargetCycle& last_cycle() const { return last_cycle_; }
  // Time in [from, to) during which a transaction of class `c` held the bus.
  sc_time held_by(StallClass c, sc_time from, sc_time to) const;
  // The host bridge reports how long one CPU transaction waited for the bus
  // (REQ# to the GNT# of the attempt that completed, Retries included).
  void record_cpu_wait(sc_time wait);

  // PCI 2.1 3.3.3.3 delayed transactions for the targets of range `name`: a request
  // the target cannot finish within 16 clocks is latched and answered with Retry; the
  // target completes it on its own side while the bus is free, and hands the result
  // to the master's identical retry. Memory writes are posted, never delayed.
  void set_delayed_transactions(const std::string& range_name, bool on);
  // Discard timer: a completion not collected this many clocks after it is ready is
  // dropped (PCI 2.1: 2^15 clocks, or 2^10 when the bridge is set so).
  void set_discard_timer_clocks(uint64_t c) { discard_clocks_ = c; }
  void set_probe(SignalProbe* p) { probe_ = p; }

 private:
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  void prune(sc_time now);
  void hold(sc_time from, sc_time to);
  LatencyTimer timer_of(int master) const;  // the Latency Timer `master` is held to
  bool delayed_transaction(tlm::tlm_generic_payload& p, const AddressMap::Hit& hit, sc_time frame,
                           sc_time& delay);

  // One delayed transaction latched by a target (PCI 2.1 allows one per target here).
  struct Delayed {
    uint64_t offset = 0;
    tlm::tlm_command cmd = tlm::TLM_IGNORE_COMMAND;
    unsigned len = 0;
    uint8_t data[8] = {};
    sc_time ready, discard_at;
  };
  std::set<std::string> delayed_ranges_;
  std::map<int, Delayed> delayed_;  // by target port
  uint64_t discard_clocks_ = 1u << 15;

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
  std::vector<PciConfig*> configs_{nullptr};  // by master number
  PciStats stats_;
  TargetCycle last_cycle_;
  int bytes_per_clock_ = 4;
  struct ClassHold {
    sc_time from, to;
    StallClass cls;
  };
  std::vector<ClassHold> class_holds_;  // holds by targets that declared a non-PCI class
  SignalProbe* probe_ = nullptr;
};

}  // namespace latsim::pci
