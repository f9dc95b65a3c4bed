#pragma once
// Pentium III core as the kernel's code paths see it: a core clock, the TSC,
// the interrupt flag, its local APIC, and an execution engine that turns
// "N cycles with M cache-line misses" into time, with each miss going out on
// the front-side bus where the host bridge may hold it off.
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include "common/local_time.h"
#include "common/params.h"
#include "models/chipset/host_bridge.h"
#include "models/common/probe.h"
#include "models/common/time.h"
#include "models/cpu/l2_residency.h"
#include "models/cpu/local_apic.h"
#include "models/cpu/mesi_directory.h"

namespace latsim::cpu {

// The platform.cpu.* knobs (cpu_keys): the processors and what they see of memory.
struct CpuParams {
  int count = 2;                 // CPUs on the board
  double mhz = 866.0;            // Pentium III 866 (coppermine), seed 000
  double dram_latency_ns = 174;  // lmbench main-memory latency, CALIBRATION.md
  double fsb_mhz = 133.0;        // PC133 front-side bus (the local APIC timer's clock)
  int l2_kb = 256;               // Coppermine: 256 KiB on-die L2 per CPU
  // mean | sampled: how a touch counts the lines evicted since (l2_residency.h)
  std::string l2_survival = "mean";
  // Simulator, not hardware: a CPU runs ahead of SystemC time while nothing else could
  // happen meanwhile (common/local_time.h). Off gives the same results, more slowly.
  bool run_ahead = true;
  // The per-CPU timer the kernel ticks from: the local APIC's, or (false: no local APIC,
  // the core's interrupt pin taken directly) the e300 decrementer, counting the time base.
  bool local_apic = true;
  int timebase_divider = 4;  // bus clocks per time-base tick (e300CORERM; MPC5200BUM: XLB / 4)

  sc_time dram_latency() const { return sc_time(dram_latency_ns, SC_NS); }
};
params::Table<CpuParams> cpu_keys();

struct Work {
  uint64_t cycles = 0;
  uint64_t misses = 0;
};

// Time the core could not retire instructions, by cause (metrics.json stall_us).
struct StallCauses {
  sc_time memory;      // cache-line misses (and PCI cycles) held off the FSB by the host bridge
  sc_time pci;         // port/MMIO accesses waiting for PCI: GNT#, ordering, the cycle
  sc_time isa;         // ISA cycles through the PCI-ISA bridge
  sc_time video_fifo;  // PCI accesses stalled by a full video FIFO (held bus or Retry)
  sc_time spin;        // spin_until: a lock held by the other CPU
  sc_time smm;         // System Management Mode: the BIOS's SMI handler
};

// The stalls since the caller last took them: one of its calls' alone.
struct CallStalls {
  StallCauses stall;
  // stall.memory by the PCI master whose traffic held the CPU off (last: not named).
  std::array<sc_time, 9> held_off_by{};
  sc_time halted;
};

struct CpuStats {
  sc_time fsb_stall;  // misses held off by a bus master beyond DRAM latency
  sc_time io_wait;    // port/MMIO accesses: waiting for host bridge and PCI GNT#
  sc_time io_cycle;   // the accesses themselves (PCI/ISA cycle time)
  sc_time spin;       // spinning on a lock held by the other CPU
  sc_time halted;     // hlt
  uint64_t misses = 0, io_accesses = 0, interrupts = 0, nmis = 0, smis = 0;
  uint64_t coherence = 0;  // FSB transactions for lines another CPU wrote (mesi_directory.h)
  StallCauses stall;       // totals by cause
  StallCauses stall_max;   // longest single stall by cause
};

// An interrupt the core is about to take (vector, or NMI).
struct Interrupt {
  bool nmi = false;
  unsigned vector = 0;
};

class Pentium3 : public sc_core::sc_module {
 public:
  Pentium3(sc_core::sc_module_name name, int id, const CpuParams& p, chipset::HostBridge& fsb,
           LocalApic& apic);

  int id() const { return id_; }
  sc_time cycles(uint64_t n) const { return sc_time::from_value(to_ps(period_) * n); }
  sc_time period() const { return period_; }
  uint64_t rdtsc() const { return uint64_t(local_time::now() / period_); }

  bool interrupts_enabled() const { return if_; }
  void set_interrupt_flag(bool on) {
    if_ = on;
    if (probe_) probe_->cpu_if(id_, local_time::now(), on);
  }
  void set_probe(SignalProbe* p) { probe_ = p; }
  // An interrupt would be taken at the next instruction boundary.
  bool interrupt_deliverable() const;
  // INTA: take the highest deliverable interrupt; clears IF (interrupt gate).
  Interrupt take_interrupt();
  // IRET from an interrupt taken with `prev_if` as the saved EFLAGS.IF.
  void iret(const Interrupt& i, bool prev_if);
  // ExtINT vectors come from the 8259A's INTA cycle.
  void set_extint_source(std::function<unsigned()> inta) { extint_ = std::move(inta); }

  // Run `w`; returns true when done, false (with the rest left in `w`) when an
  // interrupt became deliverable first. Misses stall uninterruptibly.
  bool run(Work& w);
  // hlt: sleep until an interrupt is deliverable.
  void halt();
  // Wait for `ev` (a lock release, say) or a deliverable interrupt; returns false on interrupt.
  bool spin_until(sc_core::sc_event& ev);
  // An uncached access through the host bridge (I/O port or MMIO), timed.
  void pci_access(tlm::tlm_generic_payload& p);
  // SMI# asserted: at the next instruction boundary the core enters SMM for `handler`
  // (IF and NMI blocking do not hold it off), then resumes where it was (RSM).
  void smi(sc_time handler);

  // Misses when code or data of `footprint` lines, keyed by `key`, runs now.
  uint64_t l2_misses(const void* key, uint64_t footprint) {
    return l2_.touch(key, footprint, stats_.misses);
  }

  // Draw each L2 line's survival (platform.cpu.l2_survival: sampled) from this CPU's
  // own generator, seeded from the scenario seed and the CPU's name.
  void sample_l2(uint64_t seed) {
    l2_rng_ = std::make_unique<Rng>(seed, std::string(name()) + "/l2");
    l2_.sample_with(l2_rng_.get());
  }

  // Coherence traffic for `lines` lines of shared `key` (0 without a directory: one CPU).
  uint64_t coherence_misses(const void* key, uint64_t lines, bool write) {
    const uint64_t n = mesi_ ? mesi_->access(id_, key, lines, write) : 0;
    stats_.coherence += n;
    return n;
  }
  void set_mesi(MesiDirectory* d) { mesi_ = d; }
  // The object of `bytes` at `key` is freed: its lines' history goes with it.
  void forget(const void* key, size_t bytes) {
    const void* end = static_cast<const char*>(key) + bytes;
    l2_.forget(key, end);
    if (mesi_) mesi_->forget(key, end);
  }
  size_t l2_objects() const { return l2_.objects(); }

  LocalApic& apic() { return apic_; }
  chipset::HostBridge& fsb() { return fsb_; }
  CpuStats& stats() { return stats_; }
  const CpuStats& stats() const { return stats_; }
  const CpuParams& params() const { return p_; }
  // A stall since the last take; its address, for a caller that reads it on every call.
  bool call_stalled() const { return call_dirty_; }
  const bool* call_stalled_flag() const { return &call_dirty_; }
  // Hands over the stalls since the last take, into `out` unless null, and starts afresh:
  // one kernel-visible call's, for the blame ledger. False: none.
  bool take_call(CallStalls* out) {
    if (!call_dirty_) return false;  // most calls stall on nothing
    if (out) *out = call_;
    call_ = {}, call_dirty_ = false;
    return true;
  }

 private:
  CpuParams p_;
  int id_;
  sc_time period_;
  sc_time dram_latency_;                             // p_.dram_latency(), made once
  const sc_time max_time_ = sc_core::sc_max_time();  // no holdoff ahead
  chipset::HostBridge& fsb_;
  LocalApic& apic_;
  bool if_ = false;
  SignalProbe* probe_ = nullptr;  // waveform/timeline observer, if any
  bool in_nmi_ = false;
  sc_time smm_pending_;          // handler time of SMIs asserted and not yet taken
  sc_core::sc_event smi_event_;  // SMI# asserted
  // At an instruction boundary: run the pending handler (asked on every chunk: inline).
  void enter_smm() {
    if (smm_pending_ != sc_core::SC_ZERO_TIME) take_smi();
  }
  void take_smi();
  std::function<unsigned()> extint_;
  sc_core::sc_event_or_list wake_;  // an interrupt, or new bus-master traffic to plan around
  L2Residency l2_;                  // 256 KiB L2 on Coppermine; 32-byte lines
  std::unique_ptr<Rng> l2_rng_;     // per-line survival draws (sampled), else none
  MesiDirectory* mesi_ = nullptr;   // the other CPUs' caches, snooped on the FSB
  void add_stall(sc_time StallCauses::*cause, sc_time t);
  void add_holdoff(sc_time t, int master);  // a memory stall behind `master`'s traffic
  void stop_early(Work& w, uint64_t seg, sc_time unit, uint64_t k, sc_time elapsed);
  CpuStats stats_;
  CallStalls call_;          // since the last take_call()
  bool call_dirty_ = false;  // call_ holds a stall
};

}  // namespace latsim::cpu
