#pragma once
// Where each CPU's time goes, as /proc/stat splits it (user, system, irq,
// softirq, idle), but measured exactly instead of sampled at the tick: every
// CpuOps call that lets simulated time pass is charged to the class of the
// context that made it (preempt_count's hardirq/softirq bits, user mode, idle).
#include <functional>
#include <optional>
#include <type_traits>
#include "common/local_time.h"
#include "kernel_sim/arch/cpu_ops.h"
#include "kernel_sim/sched/task.h"
#include "kernel_sim/trace/blame.h"

namespace latsim::kernel {

enum class CpuClass { User = 0, System, Irq, Softirq, Idle };

struct CpuTimes {
  sc_core::sc_time by_class[5];
  uint64_t migrations = 0;  // tasks that moved onto this CPU
  const sc_core::sc_time& operator[](CpuClass c) const { return by_class[int(c)]; }
};

// Sections with the interrupt flag clear, whoever cleared it (cli, an interrupt
// gate, spin_lock_irq): the irqs-off half of the VP tracer, measured always.
struct IrqsOffStats {
  uint64_t sections = 0;
  sc_core::sc_time total, max;
  const char* max_started_in = "";  // kernel function that cleared IF for the longest
};

// The blame ledger's record of one CPU's calls (kernel_blame.h keeps each ledger as a mark
// in it and adds the ledger up when it is read). Every call's end comes here while the
// ledger is on, so the common case is inline: no ledger open, or an unstalled call by the
// same code as the last one, which only moves that entry's end.
class CallJournal {
 public:
  // One call, or back-to-back calls by the same code, that did not stall; or one that did.
  struct Entry {
    uint64_t start_ps, end_ps;
    const char* fn;   // the kernel function running
    int32_t pid;      // the task's
    int32_t stalled;  // a stalled call: its index in `stalled` (else -1)
    int16_t intr;     // the interrupt being handled
    int16_t prio;     // the task's priority (a PI boost changes it mid-section)
    CpuClass c;       // the call's class: its context
    bool critical;    // a critical section open
  };
  struct Stalled {
    BlameCall call;
    BlameCaller who;
  };
  // Where the kernel keeps what names the code running on the CPU (its per-CPU data).
  struct Code {
    const char* const* fn;
    const int* intr;
    Task* const* curr;
  };
  // The journal's owner: records who made a stalled call, and folds a full journal.
  class Owner {
   public:
    virtual ~Owner() = default;
    virtual void stalled_call(int cpu, CpuClass c, uint64_t start_ps, uint64_t end_ps,
                              int64_t port) = 0;
    virtual void fold(int cpu) = 0;
  };
  static constexpr uint64_t kUnarmed = ~uint64_t(0);
  // `fold_at` entries, then the open ledgers add up what they have.
  CallJournal(int cpu, Code code, Owner& owner, size_t fold_at)
      : fold_at(fold_at), cpu_(cpu), code_(code), owner_(&owner) {}

  void call_end(CpuOps& hw, CpuClass c, uint64_t start_ps, uint64_t end_ps, int64_t port) {
    if (end_ps <= armed_from) {
      if (*stalled_flag_) hw.take_call_stalls(nullptr);  // no ledger is open: nobody reads it
      return;
    }
    if (*stalled_flag_ && hw.take_call_stalls(&stalls))
      return owner_->stalled_call(cpu_, c, start_ps, end_ps, port);
    const char* fn = *code_.fn;
    const int intr = *code_.intr;
    const Task* t = *code_.curr;
    const int pid = t ? t->pid : -1;
    const int prio = t ? t->prio : -1;
    if (joinable) {  // calls are back to back: time passes only inside them
      Entry& e = entries.back();
      if (e.c == c && e.fn == fn && e.intr == intr && e.pid == pid && e.prio == prio) {
        e.end_ps = end_ps;
        return;
      }
    }
    if (entries.size() >= fold_at) owner_->fold(cpu_);
    Entry& e = entries.emplace_back();  // filled in place: an Entry built aside with narrow
                                        // stores and copied wide stalls store forwarding
    e.start_ps = start_ps, e.end_ps = end_ps, e.fn = fn, e.pid = pid, e.stalled = -1;
    e.intr = int16_t(intr), e.prio = int16_t(prio), e.c = c, e.critical = critical;
    joinable = true;
  }
  // The hardware's stall flag, read on every call instead of asking it.
  void watch(const CpuOps& hw) {
    const bool* f = hw.call_stalled_flag();
    stalled_flag_ = f ? f : &kAsk;
  }

  const size_t fold_at;
  std::vector<Entry> entries;
  std::vector<Stalled> stalled;
  StallTotals stalls;              // the last stalled call's
  uint64_t armed_from = kUnarmed;  // calls ending after this are kept: the earliest ledger's start
  bool joinable = false;           // the next call may extend the last entry
  bool critical = false;           // a critical section is open: its ledger too
  size_t section_mark = 0;         // the section's first entry
  BlameLedger section_folded;      // the section's entries before the journal was last folded

 private:
  static constexpr bool kAsk = true;
  int cpu_;
  Code code_;
  Owner* owner_;
  const bool* stalled_flag_ = &kAsk;
};

// A CpuOps that forwards to the hardware's and charges the time each call took.
class AccountedCpu : public CpuOps {
 public:
  // `where` names the kernel function running now (for where an irqs-off section began).
  AccountedCpu(CpuOps& hw, std::function<CpuClass()> classify,
               std::function<const char*()> where = nullptr)
      : hw_(hw),
        classify_(std::move(classify)),
        where_(std::move(where)),
        if_on_(hw.irqs_enabled()) {}
  const CpuTimes& times() const { return t_; }
  CpuTimes& times() { return t_; }
  const IrqsOffStats& irqs_off() const { return off_; }
  void set_journal(CallJournal* j) {
    journal_ = j;
    if (j) j->watch(hw_);
  }

  int id() const override { return hw_.id(); }
  double mhz() const override { return hw_.mhz(); }
  uint64_t rdtsc() const override { return hw_.rdtsc(); }
  uint64_t cache_misses(const void* key, uint64_t footprint) override {
    return hw_.cache_misses(key, footprint);
  }
  uint64_t coherence_misses(const void* key, uint64_t lines, bool write) override {
    return hw_.coherence_misses(key, lines, write);
  }
  void forget(const void* key, size_t bytes) override { hw_.forget(key, bytes); }
  bool run(Work& w) override {
    return timed([&] { return hw_.run(w); });
  }
  bool interrupt_deliverable() const override { return hw_.interrupt_deliverable(); }
  Trap take_interrupt() override {
    const bool was_on = hw_.irqs_enabled();
    const Trap t = timed([&] { return hw_.take_interrupt(); }, CpuClass::Irq);
    if (was_on) if_changed(false, "common_interrupt");  // the gate cleared IF at entry
    return t;
  }
  void iret(const Trap& t, bool prev_if) override {
    timed([&] { return (hw_.iret(t, prev_if), 0); }, CpuClass::Irq);
    if_changed(hw_.irqs_enabled(), "iret");
  }
  void hlt() override {
    timed([&] { return (hw_.hlt(), 0); });
  }
  bool spin_until(sc_core::sc_event& ev) override {
    return timed([&] { return hw_.spin_until(ev); });
  }
  bool irqs_enabled() const override { return hw_.irqs_enabled(); }
  void set_irqs_enabled(bool on) override {
    hw_.set_irqs_enabled(on);
    if_changed(on, nullptr);
  }
  uint8_t inb(uint16_t port) override {
    return timed([&] { return hw_.inb(port); }, std::nullopt, port);
  }
  void outb(uint8_t v, uint16_t port) override {
    timed([&] { return (hw_.outb(v, port), 0); }, std::nullopt, port);
  }
  uint32_t inl(uint16_t port) override {
    return timed([&] { return hw_.inl(port); }, std::nullopt, port);
  }
  void outl(uint32_t v, uint16_t port) override {
    timed([&] { return (hw_.outl(v, port), 0); }, std::nullopt, port);
  }
  uint32_t rep_ins(uint16_t port, unsigned width, uint32_t count) override {
    return timed([&] { return hw_.rep_ins(port, width, count); }, std::nullopt, port);
  }
  uint32_t readl(uint64_t addr) override {
    return timed([&] { return hw_.readl(addr); }, std::nullopt, int64_t(addr));
  }
  void writel(uint32_t v, uint64_t addr) override {
    timed([&] { return (hw_.writel(v, addr), 0); }, std::nullopt, int64_t(addr));
  }
  void mem_write(uint64_t addr, const void* data, size_t len) override {
    timed([&] { return (hw_.mem_write(addr, data, len), 0); });
  }
  uint16_t inw(uint16_t port) override {
    return timed([&] { return hw_.inw(port); }, std::nullopt, port);
  }
  void outw(uint16_t v, uint16_t port) override {
    timed([&] { return (hw_.outw(v, port), 0); }, std::nullopt, port);
  }
  void mem_read(uint64_t addr, void* data, size_t len) override {
    timed([&] { return (hw_.mem_read(addr, data, len), 0); });
  }
  uint32_t apic_read(unsigned offset) override { return hw_.apic_read(offset); }
  void apic_write(unsigned offset, uint32_t v) override { hw_.apic_write(offset, v); }
  void send_ipi(int cpu, unsigned vector) override { hw_.send_ipi(cpu, vector); }
  void mtdec(uint32_t ticks) override { hw_.mtdec(ticks); }

 private:
  // Interrupt entry and exit are the hardware's part of handling an interrupt.
  // `port`: the port or MMIO address a call accesses (-1: none).
  template <class F>
  std::invoke_result_t<F> timed(F&& f, std::optional<CpuClass> forced = std::nullopt,
                                int64_t port = -1) {
    const CpuClass c = forced ? *forced : classify_();
    const sc_core::sc_time t0 = local_time::now();
    auto r = f();
    const sc_core::sc_time t1 = local_time::now();
    t_.by_class[int(c)] += t1 - t0;
    // Sections open and close between calls: a call is wholly inside one or outside; a
    // blame window (kernel_blame.h) may begin inside one.
    if (journal_) journal_->call_end(hw_, c, t0.value(), t1.value(), port);
    return r;
  }
  // An edge of IF: a section opens at its clear and closes at its set.
  void if_changed(bool on, const char* site) {
    if (on == if_on_) return;
    if_on_ = on;
    const sc_core::sc_time now = local_time::now();
    if (!on) {
      off_since_ = now, opened_ = true;
      off_site_ = site ? site : where_ ? where_() : "";
      return;
    }
    if (!opened_) return;  // IF was clear from reset to boot: no section of the kernel's
    const sc_core::sc_time d = now - off_since_;
    off_.sections++;
    off_.total += d;
    if (d > off_.max) off_.max = d, off_.max_started_in = off_site_;
  }
  CpuOps& hw_;
  CallJournal* journal_ = nullptr;  // the blame ledger's, while it is on
  std::function<CpuClass()> classify_;
  std::function<const char*()> where_;
  CpuTimes t_;
  IrqsOffStats off_;
  bool if_on_;
  bool opened_ = false;
  sc_core::sc_time off_since_;
  const char* off_site_ = "";
};

}  // namespace latsim::kernel
