#pragma once
#include <cstring>
// A fake CpuOps for kernel unit tests: fixed costs (1 cycle = 1/mhz µs, a miss
// costs miss_ns, every port/MMIO access io_ns), a local APIC timer that honours
// LVTT periodic/one-shot and TMICT, IPIs between the fake CPUs, and a PIT count
// derived from simulated time (so wait_8254_wraparound and mark_offset_tsc work).
// No bus, no caches: what a test observes is the kernel's own decisions.
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <systemc>
#include <utility>
#include <vector>
#include "kernel_sim/arch/cpu_ops.h"
#include "kernel_sim/kernel.h"
#include "models/cpu/l2_residency.h"
#include "models/cpu/mesi_directory.h"
#include "tests/kernel_sim/unit_params.h"

namespace latsim::test {

// Simulated-time literals for the kernel tests.
inline sc_core::sc_time us(double v) { return sc_core::sc_time(v, sc_core::SC_US); }
inline sc_core::sc_time ms(double v) { return sc_core::sc_time(v, sc_core::SC_MS); }

using kernel::CpuOps;
using kernel::Trap;
using kernel::Work;
using sc_core::SC_NS;
using sc_core::sc_time;

struct FakeCosts {
  double mhz = 1000;     // 1 cycle = 1 ns
  double miss_ns = 100;  // a DRAM line fill
  double io_ns = 1000;   // an ISA/PCI port or MMIO access
  double apic_bus_mhz = 133.33;
  int hz = 1000;              // for the fake PIT
  uint64_t refill_lines = 0;  // misses reported by cache_misses (0: all hot)
};

class FakeCpu : public CpuOps {
 public:
  FakeCpu(int id, const FakeCosts& c, std::vector<FakeCpu*>* all) : id_(id), c_(c), all_(all) {
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.set_sensitivity(&timer_ev_);
    o.dont_initialize();
    sc_core::sc_spawn([this] { timer_fired(); }, sc_core::sc_gen_unique_name("fake_apic_timer"),
                      &o);
  }

  // Test hooks.
  void post(unsigned vector) {
    pending_.insert(vector);
    irq_ev_.notify(sc_core::SC_ZERO_TIME);
  }
  bool timer_enabled = true;  // a test may silence the local timer
  uint64_t timer_interrupts = 0, io_accesses = 0;
  uint64_t misses = 0;                 // cache-line misses the kernel charged (Work::misses)
  cpu::MesiDirectory* mesi = nullptr;  // shared by the CPUs: coherence traffic (null: none)
  cpu::L2Residency* l2 = nullptr;      // this CPU's L2 (null: refill_lines decides)
  sc_time spun, halted;

  int id() const override { return id_; }
  double mhz() const override { return c_.mhz; }
  uint64_t rdtsc() const override {
    return uint64_t(sc_core::sc_time_stamp().to_seconds() * c_.mhz * 1e6);
  }
  uint64_t cache_misses(const void* key, uint64_t footprint) override {
    if (l2) return l2->touch(key, footprint, misses);  // as Pentium3: every fill counts
    return std::min(footprint, c_.refill_lines);
  }
  uint64_t coherence_misses(const void* key, uint64_t lines, bool write) override {
    return mesi ? mesi->access(id_, key, lines, write) : 0;
  }
  void forget(const void* key, size_t bytes) override {
    const void* end = static_cast<const char*>(key) + bytes;
    if (l2) l2->forget(key, end);
    if (mesi) mesi->forget(key, end);
  }
  bool run(Work& w) override {
    for (;;) {
      if (interrupt_deliverable()) return false;
      if (w.cycles == 0 && w.misses == 0) return true;
      misses += w.misses;  // issued now; an interrupted remainder carries no misses
      const double ns = double(w.cycles) * 1e3 / c_.mhz + double(w.misses) * c_.miss_ns;
      const sc_time t0 = sc_core::sc_time_stamp();
      sc_core::wait(sc_time(ns, SC_NS), irq_ev_);
      const double done_ns = (sc_core::sc_time_stamp() - t0).to_seconds() * 1e9;
      if (done_ns >= ns) {
        w.cycles = w.misses = 0;
      } else {  // interrupted: what is left, as plain cycles
        w.cycles = uint64_t((ns - done_ns) * c_.mhz / 1e3);
        w.misses = 0;
      }
    }
  }
  bool interrupt_deliverable() const override { return if_ && !pending_.empty(); }
  Trap take_interrupt() override {
    Trap t;
    t.vector = *pending_.rbegin();  // the APIC's highest priority class first
    pending_.erase(std::prev(pending_.end()));
    if_ = false;
    return t;
  }
  void iret(const Trap&, bool prev_if) override { if_ = prev_if; }
  void hlt() override {
    const sc_time t0 = sc_core::sc_time_stamp();
    while (!interrupt_deliverable()) sc_core::wait(irq_ev_);
    halted += sc_core::sc_time_stamp() - t0;
  }
  bool spin_until(sc_core::sc_event& ev) override {
    if (interrupt_deliverable()) return false;
    const sc_time t0 = sc_core::sc_time_stamp();
    sc_core::wait(ev | irq_ev_);
    spun += sc_core::sc_time_stamp() - t0;
    return !interrupt_deliverable();
  }
  bool irqs_enabled() const override { return if_; }
  void set_irqs_enabled(bool on) override {
    if_ = on;
    if (on && !pending_.empty()) irq_ev_.notify(sc_core::SC_ZERO_TIME);
  }

  uint8_t inb(uint16_t port) override {
    io();
    if (port == 0x40) {  // PIT channel 0 count, LSB then MSB of one latched value
      if (!msb_next_) latched_ = pit_count();
      const uint8_t v = msb_next_ ? uint8_t(latched_ >> 8) : uint8_t(latched_ & 0xff);
      msb_next_ = !msb_next_;
      return v;
    }
    return 0;
  }
  void outb(uint8_t, uint16_t) override { io(); }
  uint32_t inl(uint16_t) override { return io(), 0; }
  void outl(uint32_t, uint16_t) override { io(); }
  uint32_t readl(uint64_t) override { return io(), 0; }
  void writel(uint32_t, uint64_t) override { io(); }
  void mem_write(uint64_t, const void*, size_t) override {}
  uint32_t rep_ins(uint16_t, unsigned, uint32_t count) override {
    for (uint32_t i = 0; i < count; ++i) {  // interruptible between elements
      if (interrupt_deliverable()) return i;
      io();
    }
    return count;
  }
  uint16_t inw(uint16_t) override { return io(), 0; }
  void outw(uint16_t, uint16_t) override { io(); }
  void mem_read(uint64_t, void* data, size_t len) override { std::memset(data, 0, len); }

  uint32_t apic_read(unsigned) override { return 0; }
  void apic_write(unsigned off, uint32_t v) override {
    if (off == 0x320) lvtt_ = v;
    if (off == 0x380) {  // TMICT: (re)start the timer; 0 stops it
      timer_ev_.cancel();
      tmict_ = v;
      if (v) timer_ev_.notify(period());
    }
  }
  void send_ipi(int cpu, unsigned vector) override { (*all_)[size_t(cpu)]->post(vector); }

 private:
  sc_time period() const { return sc_time(double(tmict_) * 16.0 / c_.apic_bus_mhz * 1e3, SC_NS); }
  void timer_fired() {
    if (lvtt_ & (1u << 17)) timer_ev_.notify(period());  // periodic: reload
    if (!timer_enabled || (lvtt_ & (1u << 16))) return;  // masked
    timer_interrupts++;
    post(lvtt_ & 0xff);
  }
  void io() {
    io_accesses++;
    sc_core::wait(sc_time(c_.io_ns, SC_NS));
  }
  unsigned pit_count() const {
    const unsigned latch = (1193182u + unsigned(c_.hz) / 2) / unsigned(c_.hz);
    const double ticks = sc_core::sc_time_stamp().to_seconds() * 1193182.0;
    return latch - unsigned(uint64_t(ticks) % latch);
  }

  int id_;
  FakeCosts c_;
  std::vector<FakeCpu*>* all_;
  bool if_ = false;
  std::set<unsigned> pending_;
  sc_core::sc_event irq_ev_, timer_ev_;
  uint32_t lvtt_ = 1u << 16, tmict_ = 0;
  bool msb_next_ = false;
  unsigned latched_ = 0;
};

// A machine of N fake CPUs and a kernel booted on them.
struct FakeMachine {
  explicit FakeMachine(int ncpus, kernel::KernelParams p = unit_params(), FakeCosts c = {}) {
    c.hz = p.hz;
    c.apic_bus_mhz = p.apic_bus_mhz;
    for (int i = 0; i < ncpus; ++i) owned.push_back(std::make_unique<FakeCpu>(i, c, &cpus));
    std::vector<CpuOps*> ops;
    for (auto& o : owned) cpus.push_back(o.get()), ops.push_back(o.get());
    k = std::make_unique<kernel::Kernel>(p, ops);
  }
  std::vector<std::unique_ptr<FakeCpu>> owned;
  std::vector<FakeCpu*> cpus;
  std::unique_ptr<kernel::Kernel> k;
};

// A workload whose start() is a test's lambda (creates the tasks it needs at boot).
class LambdaWorkload : public kernel::Workload {
 public:
  explicit LambdaWorkload(std::function<void(kernel::Kernel&)> f) : f_(std::move(f)) {}
  const std::string& name() const override { return name_; }
  void start(kernel::Kernel& k) override { f_(k); }

 private:
  std::string name_ = "test";
  std::function<void(kernel::Kernel&)> f_;
};

// Boot the fake machine's kernel with `start` as its one workload.
inline void boot(FakeMachine& m, std::function<void(kernel::Kernel&)> start) {
  m.k->add_workload(std::make_unique<LambdaWorkload>(std::move(start)));
  m.k->boot();
}

// Parameters of each flavour as the loader sets them: the VP switches it fixes.
inline kernel::KernelParams flavour_params(const std::string& flavour) {
  kernel::KernelParams p = unit_params();
  p.flavour = flavour;
  p.nmi_watchdog = false;
  p.trace.enabled = false;
  const kernel::PreemptSwitches& fixed = kernel::resolve_flavour(flavour).switches;
  const std::pair<bool*, int> switches[] = {{&p.voluntary_preemption, fixed.voluntary},
                                            {&p.kernel_preemption, fixed.kernel},
                                            {&p.softirq_preemption, fixed.softirq},
                                            {&p.hardirq_preemption, fixed.hardirq}};
  for (const auto& [value, want] : switches)
    if (want != kernel::PreemptSwitches::kSettable) *value = want != 0;
  return p;
}

}  // namespace latsim::test
