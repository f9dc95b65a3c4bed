#pragma once
// North bridge: joins the front-side bus (both CPUs), DRAM and the PCI bus.
// Its CPU-vs-bus-master policy is the 2004 hypothesis: some chipsets keep the
// CPU off the FSB while a master's transfer is under way. Its CPU-to-PCI side is
// one in-order queue: memory writes are posted, reads and I/O cycles wait for them.
#include <tlm_utils/simple_initiator_socket.h>
#include <deque>
#include <systemc>
#include <tlm>
#include <vector>
#include "common/params.h"
#include "models/chipset/dram.h"
#include "models/common/time.h"
#include "models/pci/pci_bus.h"
#include "models/pci/target_termination.h"

namespace latsim::chipset {

enum class CpuHoldoff {
  None,     // CPU and masters share DRAM; the CPU waits only for PCI itself
  SgEntry,  // CPU held off until the master's current scatter-gather entry is done
  Grants,   // held for N consecutive master grants (VIA 8363/8371 + 686B)
  Rotate,   // master priority rotates on every grant (VIA register 0x76 fix)
  // Fixed, non-rotating priority: held while the master keeps REQ# asserted, i.e. to
  // the end of its run of back-to-back entries (BurstTrain::run_end).
  ReqAsserted,
};

// The platform.host_bridge.* knobs (host_bridge_keys) and the bridge's fixed facts.
struct HostBridgeParams {
  sc_time cpu_to_pci = sc_time(30, SC_NS);   // assumption: one PCI clock to post the cycle
  CpuHoldoff holdoff = CpuHoldoff::SgEntry;  // O4: one 4 KB entry per ~70 us CPU stall
  int holdoff_grants = 3;                    // VIA 8363/8371/8361 + 686B: 3 bus-master requests
  // ReqAsserted: a CPU cycle to PCI (I/O, MMIO) waits for REQ# to drop as a memory miss
  // does; false: only to the end of the current entry. Assumption (see cpu_pci_access).
  bool io_waits_req = true;
  // false: only memory requests are held off; a CPU cycle to PCI waits for GNT# alone.
  bool io_holdoff = true;
  // CPU-to-PCI posted-write buffer in dword entries; 0 = writes are not posted.
  // Assumption: VIA 694X-class north bridges post a few dwords (4-8); no datasheet at hand.
  int posted_write_entries = 4;
  int retry_backoff_clocks = pci::kRetryReqReleaseClocks;  // REQ# released after a Retry
};
params::Table<HostBridgeParams> host_bridge_keys();

struct HostBridgeStats {
  uint64_t posted_writes = 0;  // CPU memory writes accepted into the posted-write buffer
  uint64_t retries = 0;        // PCI attempts a target ended with Retry
  int max_posted = 0;          // deepest the buffer got
  sc_time buffer_full_stall;   // CPUs stuck on a store because the buffer was full
  sc_time ordering_wait;       // reads and I/O cycles waiting for earlier PCI cycles
};

// Where one CPU access to PCI spent its time, beyond plain PCI arbitration and
// cycles (the CPU charges the rest of the access to "pci").
struct AccessStall {
  sc_time memory;          // the FSB request held off by the bus-master holdoff
  int memory_master = -1;  // the PCI master whose traffic held it (-1: none)
  sc_time isa;             // ISA cycles: its own, and ones holding the bus or queue ahead of it
  sc_time video_fifo;      // a full video FIFO: held wait states and Retries
  void add(pci::StallClass c, sc_time t) {
    if (c == pci::StallClass::Isa) isa += t;
    if (c == pci::StallClass::VideoFifo) video_fifo += t;
  }
};

class HostBridge : public sc_core::sc_module, public pci::MasterTrafficListener {
 public:
  tlm_utils::simple_initiator_socket<HostBridge> pci_socket;  // CPU cycles onto PCI

  HostBridge(sc_core::sc_module_name name, const HostBridgeParams& p, pci::PciBus& pci, Dram& dram);

  // --- CPU side (front-side bus) ---
  // Earliest time >= t at which a CPU's FSB request is accepted (a cache-line miss
  // completes the CPU's DRAM latency later).
  sc_time cpu_ready(sc_time t) const;
  // First time >= t at which the CPU would be held off (SC_ZERO_TIME-less: max time if none known).
  sc_time next_holdoff(sc_time t) const;
  // The master whose train holds a CPU request at t off the FSB (-1: none); for waveforms.
  int holding_master(sc_time t) const;
  // Notified whenever new master traffic (so new holdoff) is announced.
  sc_core::sc_event& traffic_changed() { return changed_; }

  // An uncached CPU access to I/O or memory-mapped space on PCI; must be called
  // from a thread. A memory write is posted: the CPU goes on once the bridge has
  // it, and stalls only while the buffer is full. A read or an I/O cycle waits for
  // the FSB, then for every earlier PCI cycle (PCI ordering: a read pushes posted
  // writes ahead of it), then for PCI GNT#, then the cycle; Retry is repeated.
  AccessStall cpu_pci_access(tlm::tlm_generic_payload& p);
  int posted() const { return int(posted_.size()); }
  const HostBridgeStats& stats() const { return stats_; }

  // --- PCI side ---
  void master_traffic(const pci::BurstTrain& train) override;
  void master_traffic_deferred(const pci::BurstTrain& before,
                               const pci::BurstTrain& after) override;

  Dram& dram() { return dram_; }
  const HostBridgeParams& params() const { return p_; }
  void set_policy(CpuHoldoff h) { p_.holdoff = h; }

 private:
  struct Window {
    sc_time start, end;
    const pci::BurstTrain* train;  // index into trains_ for grant-level policies
  };
  struct PostedWrite {
    uint64_t addr;
    uint8_t data[8];
    unsigned len;
    sc_time ready;  // in the buffer from then on
    uint64_t ticket;
  };
  // `io`: the request is a CPU cycle to PCI rather than a memory access.
  sc_time ready_in(const pci::BurstTrain& tr, sc_time t, bool io = false) const;
  sc_time ready_at(sc_time t, bool io) const;                  // cpu_ready for either kind
  sc_time hold_end(const pci::BurstTrain& tr, bool io) const;  // end of tr's holdoff window
  void prune(sc_time now);
  AccessStall post(tlm::tlm_generic_payload& p);
  void drain();                                                // thread: posted writes onto PCI
  void wait_turn(uint64_t ticket, AccessStall* st = nullptr);  // in-order CPU-to-PCI queue
  // GNT#, the cycle, retries; `st` gets the time due to ISA or video targets.
  void pci_cycle(tlm::tlm_generic_payload& p, sc_time req, AccessStall* st = nullptr);
  void wait_slot(AccessStall* st);  // one turn of the queue, charged to the cycle that ended it
  void next_turn();

  HostBridgeParams p_;
  pci::PciBus& pci_;
  Dram& dram_;
  std::vector<pci::BurstTrain> trains_;
  mutable std::vector<char> waited_;  // ready_at's trains already waited for
  sc_core::sc_event changed_;
  std::deque<PostedWrite> posted_;
  uint64_t next_ticket_ = 0, serving_ = 0;  // CPU-to-PCI cycles run in ticket order
  sc_core::sc_event posted_ev_, turn_ev_;
  HostBridgeStats stats_;
  pci::StallClass last_done_ = pci::StallClass::Pci;  // class of the cycle completed last
};

}  // namespace latsim::chipset
