#include "models/cpu/pentium3.h"
#include <algorithm>
#include "common/local_time.h"
#include "common/log.h"

namespace latsim::cpu {

params::Table<CpuParams> cpu_keys() {
  using namespace params;
  using P = CpuParams;
  return {
      bind(with_source(integer("count", 1, 8, "CPUs",
                               "number of CPUs (8: the APIC flat logical model's limit)"),
                       "CALIBRATION.md reference machine: dual Pentium III 866 MHz"),
           &P::count),
      bind(with_source(number("mhz", 100, 4000, "MHz", "core clock"),
                       "CALIBRATION.md reference machine: Pentium III 866 MHz"),
           &P::mhz),
      bind(with_source(number("dram_latency_ns", 10, 1000, "ns",
                              "load latency of a cache miss to main memory"),
                       "CALIBRATION.md CPU and memory: lmbench main-memory latency 174 ns"),
           &P::dram_latency_ns),
      bind(with_source(number("fsb_mhz", 33, 400, "MHz", "front-side bus clock"),
                       "CALIBRATION.md CPU and memory: FSB 133 MHz x 8 bytes"),
           &P::fsb_mhz),
      bind(with_source(integer("l2_kb", 8, 4096, "KiB",
                               "unified L2 per CPU (random replacement; decides refill misses); "
                               "on a core without L2, its L1 caches"),
                       "Pentium III Coppermine: 256 KiB on-die L2 per CPU"),
           &P::l2_kb),
      bind(with_source(choice("l2_survival", {"mean", "sampled"},
                              "L2 lines evicted since an object's last use: mean (the expected "
                              "number, fractions carried over) or sampled (each line drawn, as "
                              "random replacement evicts: rare fully cold touches)"),
                       "assumption: the expected number (l2_residency.h)"),
           &P::l2_survival),
      bind(with_source(params::of_type(params::ValueType::Bool, "run_ahead",
                                       "let a CPU run ahead of SystemC time while no other "
                                       "process could act meanwhile (exact temporal "
                                       "decoupling: the same results, fewer context switches)"),
                       "simulator engine, not hardware"),
           &P::run_ahead),
      bind(with_source(of_type(ValueType::Bool, "local_apic",
                               "the cores have local APICs (the APIC timer tick, IPIs); false: "
                               "the core's interrupt pin is its only input and the tick is the "
                               "e300 decrementer (one CPU only)"),
                       "reference machine: Pentium III, on-chip local APIC"),
           &P::local_apic),
      bind(with_source(integer("timebase_divider", 1, 64, "bus clocks",
                               "bus clocks per time-base tick: the decrementer's rate (used "
                               "when local_apic is false)"),
                       "e300CORERM: time base and decrementer; MPC5200BUM: XLB clock / 4"),
           &P::timebase_divider),
  };
}

Pentium3::Pentium3(sc_core::sc_module_name name, int id, const CpuParams& p,
                   chipset::HostBridge& fsb, LocalApic& apic)
    : sc_module(name),
      p_(p),
      id_(id),
      period_(period_of_mhz(p.mhz)),
      dram_latency_(p.dram_latency()),
      fsb_(fsb),
      apic_(apic),
      l2_(uint64_t(p.l2_kb) * 1024 / 32) {
  wake_ = apic_.interrupt_event() | fsb_.traffic_changed() | smi_event_;
}

void Pentium3::smi(sc_time handler) {
  smm_pending_ += handler;
  stats_.smis++;
  smi_event_.notify(SC_ZERO_TIME);
}

void Pentium3::take_smi() {
  local_time::sync();
  const sc_time t = smm_pending_;
  smm_pending_ = SC_ZERO_TIME;
  LATSIM_DEBUG(cpu, name(), "SMI: {} in SMM", t);
  sc_core::wait(t);  // the handler; interrupts arriving meanwhile stay pending until RSM
  add_stall(&StallCauses::smm, t);
}

bool Pentium3::interrupt_deliverable() const {
  if (in_nmi_) return false;  // NMIs are blocked until IRET of the NMI handler
  if (apic_.nmi_pending()) return true;
  return if_ && apic_.has_deliverable();
}

Interrupt Pentium3::take_interrupt() {
  local_time::sync();  // INTA: the APIC and 8259A see the cycle at its time
  Interrupt i;
  if (apic_.take_nmi()) {
    i.nmi = true;
    i.vector = 2;
    in_nmi_ = true;
    stats_.nmis++;
  } else if (apic_.take_extint()) {
    i.vector = extint_ ? extint_() : 0x27;  // no 8259A wired: spurious IRQ7
    stats_.interrupts++;
  } else {
    i.vector = apic_.ack();
    stats_.interrupts++;
  }
  set_interrupt_flag(false);  // interrupt gate
  return i;
}

void Pentium3::iret(const Interrupt& i, bool prev_if) {
  if (i.nmi) in_nmi_ = false;
  set_interrupt_flag(prev_if);
}

bool Pentium3::run(Work& w) {
  // Picoseconds as integers: a chunk's products stay far below 2^53, where sc_time's
  // multiply by a double gives the same value more slowly.
  const uint64_t lat = to_ps(dram_latency_), period = to_ps(period_);
  for (;;) {
    enter_smm();
    if (interrupt_deliverable()) return false;
    if (w.cycles == 0 && w.misses == 0) return true;
    const sc_time now = local_time::now();
    // Spread the misses evenly: `seg` cycles of work before each, the tail after the last.
    const uint64_t seg = w.misses ? w.cycles / (w.misses + 1) : 0;
    const uint64_t tail = w.cycles - seg * w.misses;
    const uint64_t unit = period * seg + lat;
    // Only a miss can be held off: work without one does not ask the bridge.
    const sc_time hold = w.misses ? fsb_.next_holdoff(now) : max_time_;
    uint64_t k = w.misses;  // misses that issue before the next holdoff begins
    if (hold != max_time_) {
      const uint64_t first_issue = to_ps(now) + period * seg;
      // Misses issuing strictly before `hold` (one issuing at `hold` is held off).
      k = first_issue >= to_ps(hold)
              ? 0
              : std::min<uint64_t>(w.misses, (to_ps(hold) - first_issue + unit - 1) / unit);
    }
    if (k > 0 || w.misses == 0) {
      const bool all = k == w.misses;
      const sc_time d = sc_time::from_value(unit * k + (all ? period * tail : 0));
      const bool ahead = local_time::run_ahead(d);  // nothing can wake it meanwhile
      if (!ahead) local_time::sync_and_wait(d, wake_);
      const sc_time elapsed = ahead ? d : local_time::sc_now() - now;
      if (elapsed >= d) {
        w.misses -= k;
        w.cycles -= seg * k + (all ? tail : 0);
        stats_.misses += k;
        continue;
      }
      stop_early(w, seg, sc_time::from_value(unit), k, elapsed);
      continue;
    }
    // The next miss issues inside a holdoff: the load waits on the FSB and the
    // core cannot take an interrupt in the middle of the instruction. The bridge's trains
    // are as at the local time: nothing else has run during the lead.
    const sc_time issue = now + cycles(seg);
    const sc_time done = fsb_.cpu_ready(issue) + dram_latency_;
    stats_.fsb_stall += done - (issue + dram_latency_);
    if (done > issue + dram_latency_) {
      const int master = fsb_.holding_master(issue);
      add_holdoff(done - (issue + dram_latency_), master);
      if (probe_) probe_->fsb_holdoff(id_, issue, done - dram_latency_, master);
    }
    local_time::sync_and_wait(done - now);
    w.misses--;
    w.cycles -= seg;
    stats_.misses++;
  }
}

// Woken early (interrupt or new bus traffic) `elapsed` into a chunk of `k` misses: keep
// what was done and stop at the next instruction boundary, so no time is lost or
// invented: a miss already on the bus completes, and so does the cycle in progress.
void Pentium3::stop_early(Work& w, uint64_t seg, sc_time unit, uint64_t k, sc_time elapsed) {
  uint64_t done = unit > SC_ZERO_TIME ? std::min<uint64_t>(k, to_ps(elapsed) / to_ps(unit)) : 0;
  sc_time rest = elapsed - unit * double(done);
  if (done < k && rest > cycles(seg)) {
    sc_core::wait(unit - rest);
    ++done;
    rest = SC_ZERO_TIME;
  }
  w.misses -= done;
  w.cycles -= seg * done;
  stats_.misses += done;
  const uint64_t c = std::min<uint64_t>((to_ps(rest) + to_ps(period_) - 1) / to_ps(period_),
                                        w.misses ? seg : w.cycles);
  if (cycles(c) > rest) sc_core::wait(cycles(c) - rest);
  w.cycles -= std::min(c, w.cycles);
}

void Pentium3::halt() {
  local_time::sync();
  const sc_time t0 = sc_core::sc_time_stamp();
  sc_time smm = SC_ZERO_TIME;
  for (;;) {
    const sc_time s0 = sc_core::sc_time_stamp();
    enter_smm();  // SMI# wakes the core from HLT; RSM returns to the HLT
    smm += sc_core::sc_time_stamp() - s0;
    if (interrupt_deliverable()) break;
    sc_core::wait(apic_.interrupt_event() | smi_event_);
  }
  stats_.halted += sc_core::sc_time_stamp() - t0 - smm;
  call_.halted += sc_core::sc_time_stamp() - t0 - smm;
  call_dirty_ = true;
}

bool Pentium3::spin_until(sc_core::sc_event& ev) {
  local_time::sync();
  enter_smm();
  if (interrupt_deliverable()) return false;
  const sc_time t0 = sc_core::sc_time_stamp();
  sc_core::wait(ev | apic_.interrupt_event() | smi_event_);
  stats_.spin += sc_core::sc_time_stamp() - t0;
  add_stall(&StallCauses::spin, sc_core::sc_time_stamp() - t0);
  enter_smm();  // the caller re-checks what it spins on: a release during SMM is not lost
  return !interrupt_deliverable();
}

void Pentium3::pci_access(tlm::tlm_generic_payload& p) {
  local_time::sync();
  const sc_time t0 = sc_core::sc_time_stamp();
  const chipset::AccessStall st = fsb_.cpu_pci_access(p);
  const sc_time total = sc_core::sc_time_stamp() - t0;
  stats_.io_accesses++;
  stats_.io_wait += total;
  if (st.memory > SC_ZERO_TIME) add_holdoff(st.memory, st.memory_master);
  add_stall(&StallCauses::isa, st.isa);
  add_stall(&StallCauses::video_fifo, st.video_fifo);
  if (probe_ && st.video_fifo > SC_ZERO_TIME) probe_->fifo_stall(id_, t0, t0 + st.video_fifo);
  const sc_time other = st.memory + st.isa + st.video_fifo;
  add_stall(&StallCauses::pci, total > other ? total - other : SC_ZERO_TIME);
  enter_smm();  // an SMI asserted during the access is taken after the instruction
}

void Pentium3::add_holdoff(sc_time t, int master) {
  LATSIM_DEBUG(cpu, name(), "FSB miss held off {} by PCI master {}", t, master);
  add_stall(&StallCauses::memory, t);
  const size_t last = call_.held_off_by.size() - 1;
  call_.held_off_by[master >= 0 && size_t(master) < last ? size_t(master) : last] += t;
  call_dirty_ = true;
}

void Pentium3::add_stall(sc_time StallCauses::*cause, sc_time t) {
  if (t == SC_ZERO_TIME) return;
  stats_.stall.*cause += t;
  call_.stall.*cause += t;
  call_dirty_ = true;
  stats_.stall_max.*cause = std::max(stats_.stall_max.*cause, t);
}

}  // namespace latsim::cpu
