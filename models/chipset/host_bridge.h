#pragma once
// North bridge: joins the front-side bus (both CPUs), DRAM and the PCI bus.
// Its CPU-vs-bus-master policy is the 2004 hypothesis: some chipsets keep the
// CPU off the FSB while a master's transfer is under way.
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>
#include <vector>
#include "models/chipset/dram.h"
#include "models/common/time.h"
#include "models/pci/pci_bus.h"

namespace latsim::chipset {

enum class CpuHoldoff {
  None,     // CPU and masters share DRAM; the CPU waits only for PCI itself
  SgEntry,  // CPU held off until the master's current scatter-gather entry is done
  Grants,   // held for N consecutive master grants (VIA 8363/8371 + 686B)
  Rotate,   // master priority rotates on every grant (VIA register 0x76 fix)
};

struct HostBridgeParams {
  sc_time dram_latency = sc_time(174, SC_NS);  // lmbench, CALIBRATION.md
  sc_time cpu_to_pci = sc_time(30, SC_NS);     // assumption: one PCI clock to post the cycle
  CpuHoldoff holdoff = CpuHoldoff::SgEntry;
  int holdoff_grants = 3;
};

class HostBridge : public sc_core::sc_module, public pci::MasterTrafficListener {
 public:
  tlm_utils::simple_initiator_socket<HostBridge> pci_socket;  // CPU cycles onto PCI

  HostBridge(sc_core::sc_module_name name, const HostBridgeParams& p, pci::PciBus& pci, Dram& dram);

  // --- CPU side (front-side bus) ---
  // Earliest time >= t at which a CPU's FSB request is accepted.
  sc_time cpu_ready(sc_time t) const;
  // Completion time of one cache-line miss issued at t.
  sc_time cpu_miss_done(sc_time t) const { return cpu_ready(t) + p_.dram_latency; }
  // First time >= t at which the CPU would be held off (SC_ZERO_TIME-less: max time if none known).
  sc_time next_holdoff(sc_time t) const;
  // Notified whenever new master traffic (so new holdoff) is announced.
  sc_core::sc_event& traffic_changed() { return changed_; }

  // An uncached CPU access to I/O or memory-mapped space on PCI; must be called
  // from a thread. Waits for the host bridge, then for PCI GNT#, then the cycle.
  void cpu_pci_access(tlm::tlm_generic_payload& p);

  // --- PCI side ---
  void master_traffic(const pci::BurstTrain& train) override;

  Dram& dram() { return dram_; }
  const HostBridgeParams& params() const { return p_; }
  void set_policy(CpuHoldoff h) { p_.holdoff = h; }

 private:
  struct Window {
    sc_time start, end;
    const pci::BurstTrain* train;  // index into trains_ for grant-level policies
  };
  sc_time ready_in(const pci::BurstTrain& tr, sc_time t) const;
  void prune(sc_time now);

  HostBridgeParams p_;
  pci::PciBus& pci_;
  Dram& dram_;
  std::vector<pci::BurstTrain> trains_;
  sc_core::sc_event changed_;
};

}  // namespace latsim::chipset
