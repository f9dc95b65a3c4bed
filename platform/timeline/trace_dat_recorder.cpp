#include "platform/timeline/trace_dat_recorder.h"
#include <algorithm>
#include "platform/timeline/ftrace_text_writer.h"

namespace latsim::platform::timeline {
namespace {

constexpr uint64_t kPsPerNs = 1000;

TraceField field(std::string decl, int size, bool is_signed) {
  return {std::move(decl), size, is_signed};
}

// The preemptirq events' caller and parent, as symbols relative to _stext.
const char* kCallerFmt =
    "\"caller=%pS parent=%pS\", (void *)((unsigned long)(_stext) + REC->caller_offs), "
    "(void *)((unsigned long)(_stext) + REC->parent_offs)";

// TASK_REPORT bits of prev_state (S, D, X; 0 is R), as sched_switch's format prints them.
long prev_state(int state) {
  if (state == kernel::TASK_RUNNING) return 0;
  if (state & kernel::TASK_DEAD) return 0x10;
  if (state & kernel::TASK_UNINTERRUPTIBLE) return 0x2;
  return 0x1;
}

}  // namespace

TraceDatRecorder::TraceDatRecorder(kernel::Kernel& k, std::vector<std::string> pci_masters,
                                   const std::string& path, TimeWindow win)
    : k_(k),
      masters_(std::move(pci_masters)),
      window_(win),
      w_(path, k.ncpus()),
      cpus_(size_t(k.ncpus())) {
  // The formats of a Linux kernel's events/<system>/<event>/format files.
  const TraceField comm16 = field("char comm[16]", 16, false);
  sched_switch_ = w_.add_event(
      "sched", "sched_switch",
      {field("char prev_comm[16]", 16, false), field("pid_t prev_pid", 4, true),
       field("int prev_prio", 4, true), field("long prev_state", 8, true),
       field("char next_comm[16]", 16, false), field("pid_t next_pid", 4, true),
       field("int next_prio", 4, true)},
      "\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
      "next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & 0xff) ? "
      "__print_flags(REC->prev_state & 0xff, \"|\", { 0x01, \"S\" }, { 0x02, \"D\" }, "
      "{ 0x04, \"T\" }, { 0x08, \"t\" }, { 0x10, \"X\" }, { 0x20, \"Z\" }, { 0x40, \"P\" }, "
      "{ 0x80, \"I\" }) : \"R\", REC->prev_state & 0x100 ? \"+\" : \"\", REC->next_comm, "
      "REC->next_pid, REC->next_prio");
  sched_wakeup_ =
      w_.add_event("sched", "sched_wakeup",
                   {comm16, field("pid_t pid", 4, true), field("int prio", 4, true),
                    field("int target_cpu", 4, true)},
                   "\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, "
                   "REC->target_cpu");
  irq_entry_ = w_.add_event("irq", "irq_handler_entry",
                            {field("int irq", 4, true), field("__data_loc char[] name", 4, true)},
                            "\"irq=%d name=%s\", REC->irq, __get_str(name)");
  irq_exit_ = w_.add_event("irq", "irq_handler_exit",
                           {field("int irq", 4, true), field("int ret", 4, true)},
                           "\"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\"");
  // The 2.6 kernel's softirq numbers (kernel_sim/kernel.h).
  const std::string vec_fmt =
      "\"vec=%u [action=%s]\", REC->vec, __print_symbolic(REC->vec, { 0, \"HI\" }, "
      "{ 1, \"TIMER\" }, { 2, \"NET_TX\" }, { 3, \"NET_RX\" }, { 4, \"SCSI\" }, "
      "{ 5, \"TASKLET\" }, { 7, \"HRTIMER\" })";
  softirq_entry_ =
      w_.add_event("irq", "softirq_entry", {field("unsigned int vec", 4, false)}, vec_fmt);
  softirq_exit_ =
      w_.add_event("irq", "softirq_exit", {field("unsigned int vec", 4, false)}, vec_fmt);
  const std::vector<TraceField> offs = {field("s32 caller_offs", 4, true),
                                        field("s32 parent_offs", 4, true)};
  irq_disable_ = w_.add_event("preemptirq", "irq_disable", offs, kCallerFmt);
  irq_enable_ = w_.add_event("preemptirq", "irq_enable", offs, kCallerFmt);
  preempt_disable_ = w_.add_event("preemptirq", "preempt_disable", offs, kCallerFmt);
  preempt_enable_ = w_.add_event("preemptirq", "preempt_enable", offs, kCallerFmt);
  // latsim's own: what held the CPU off, at the time it started.
  fsb_holdoff_ =
      w_.add_event("latsim", "fsb_holdoff",
                   {field("u64 wait_ns", 8, false), field("__data_loc char[] master", 4, true)},
                   "\"master=%s wait_ns=%llu\", __get_str(master), REC->wait_ns");
  dma_burst_ =
      w_.add_event("latsim", "dma_burst",
                   {field("u64 duration_ns", 8, false), field("u32 bytes", 4, false),
                    field("u32 bursts", 4, false), field("u32 period_ns", 4, false),
                    field("u32 tenure_ns", 4, false), field("__data_loc char[] master", 4, true)},
                   "\"master=%s bytes=%u bursts=%u period_ns=%u tenure_ns=%u duration_ns=%llu\", "
                   "__get_str(master), REC->bytes, REC->bursts, REC->period_ns, REC->tenure_ns, "
                   "REC->duration_ns");
  fifo_stall_ = w_.add_event("latsim", "fifo_stall", {field("u64 stall_ns", 8, false)},
                             "\"stall_ns=%llu\", REC->stall_ns");
  w_.set_comm(0, "swapper");
}

void TraceDatRecorder::emit(int cpu, uint64_t ps, int type, const TraceRecord& r) {
  if (!window_.contains(ps)) return;
  const kernel::Task* cur = k_.cpu_rq(cpu).curr;
  const uint32_t pc = cur ? cur->preempt_count & ~kernel::PREEMPT_ACTIVE : 0;
  uint8_t flags = k_.cpu(cpu).irqs_enabled() ? 0 : TraceDatWriter::kIrqsOff;
  if (pc >= kernel::HARDIRQ_OFFSET) flags |= TraceDatWriter::kHardirq;
  if (pc & 0xff00u) flags |= TraceDatWriter::kSoftirq;
  w_.record(cpu, ps / kPsPerNs, type, flags, uint8_t(pc & 0xffu), cur ? cur->pid : 0, r);
  advance(cpu, ps);
}

// A CPU's own records come in time order (a stall is reported at its start, and its CPU did
// nothing meanwhile); only the bus's transfers on CPU 0 may be announced ahead or written late.
void TraceDatRecorder::advance(int cpu, uint64_t ps) {
  if (cpu == 0) {
    // A train over can no longer be deferred: written now, it holds back nothing.
    const uint64_t now = to_ps(sc_core::sc_time_stamp());
    for (auto it = pending_train_.begin(); it != pending_train_.end();) {
      if (it->second.end >= now) {
        ps = std::min(ps, it->second.start);
        ++it;
        continue;
      }
      write_train(it->first, it->second);
      it = pending_train_.erase(it);
    }
  }
  w_.advance(cpu, ps / kPsPerNs);
}

void TraceDatRecorder::sched_switch(int cpu, sc_core::sc_time t, const kernel::Task& prev,
                                    const kernel::Task& next) {
  const uint64_t ps = to_ps(t);
  if (!window_.contains(ps)) return;
  const std::string pc = ftrace_comm(prev.comm), nc = ftrace_comm(next.comm);
  w_.set_comm(prev.pid, pc);
  w_.set_comm(next.pid, nc);
  TraceRecord r;
  r.chars(pc, 16).i32(prev.pid).i32(prev.prio).u64(uint64_t(prev_state(prev.state)));
  r.chars(nc, 16).i32(next.pid).i32(next.prio);
  const uint32_t pcount = prev.preempt_count & ~kernel::PREEMPT_ACTIVE;
  const uint8_t flags = k_.cpu(cpu).irqs_enabled() ? 0 : TraceDatWriter::kIrqsOff;
  w_.record(cpu, ps / kPsPerNs, sched_switch_, flags, uint8_t(pcount & 0xffu), prev.pid, r);
  advance(cpu, ps);
}

void TraceDatRecorder::sched_wakeup(int cpu, sc_core::sc_time t, const kernel::Task& p,
                                    int target_cpu) {
  const std::string comm = ftrace_comm(p.comm);
  w_.set_comm(p.pid, comm);
  TraceRecord r;
  r.chars(comm, 16).i32(p.pid).i32(p.prio).i32(target_cpu);
  emit(cpu, to_ps(t), sched_wakeup_, r);
}

void TraceDatRecorder::function_entry(int cpu, sc_core::sc_time, const char* fn,
                                      const char* parent) {
  cpus_[size_t(cpu)].fn = fn;
  cpus_[size_t(cpu)].parent = parent ? parent : "";
}

void TraceDatRecorder::irq_entry(int cpu, sc_core::sc_time t, unsigned vector, bool nmi) {
  // Device interrupts by irq number and handler name; the CPU's own vectors by vector.
  auto it = irq_of_vector_.find(nmi ? 2u : vector);
  if (it == irq_of_vector_.end()) {
    std::pair<int, std::string> v{int(vector), "vector"};
    if (nmi)
      v = {2, "NMI"};
    else if (vector == kernel::LOCAL_TIMER_VECTOR)
      v.second = "LOC";
    else if (vector == kernel::RESCHEDULE_VECTOR)
      v.second = "RES";
    else if (vector == kernel::SPURIOUS_APIC_VECTOR)
      v.second = "SPU";
    for (unsigned irq = 0; irq < kernel::NR_IRQS; ++irq)
      if (!nmi && kernel::irq_vector(irq) == vector) {
        const std::string& name = k_.irq_desc(irq).name;
        v = {int(irq), name.empty() ? "?" : name};
      }
    it = irq_of_vector_.emplace(nmi ? 2u : vector, std::move(v)).first;
  }
  cpus_[size_t(cpu)].irqs.push_back(it->second.first);
  TraceRecord r;
  r.i32(it->second.first).str(it->second.second);
  emit(cpu, to_ps(t), irq_entry_, r);
}

void TraceDatRecorder::irq_exit(int cpu, sc_core::sc_time t) {
  auto& irqs = cpus_[size_t(cpu)].irqs;
  if (irqs.empty()) return;
  TraceRecord r;
  r.i32(irqs.back()).i32(1);
  irqs.pop_back();
  emit(cpu, to_ps(t), irq_exit_, r);
}

void TraceDatRecorder::softirq_action_entry(int cpu, sc_core::sc_time t, unsigned nr) {
  TraceRecord r;
  r.u32(nr);
  emit(cpu, to_ps(t), softirq_entry_, r);
}

void TraceDatRecorder::softirq_action_exit(int cpu, sc_core::sc_time t, unsigned nr) {
  TraceRecord r;
  r.u32(nr);
  emit(cpu, to_ps(t), softirq_exit_, r);
}

void TraceDatRecorder::caller_event(int cpu, uint64_t ps, int type, std::string_view caller,
                                    std::string_view parent) {
  if (!window_.contains(ps)) return;
  TraceRecord r;
  r.i32(w_.symbol(caller)).i32(w_.symbol(parent));
  emit(cpu, ps, type, r);
}

void TraceDatRecorder::preempt_toggle(int cpu, sc_core::sc_time t, bool disabled,
                                      const kernel::CodeSite& site) {
  const Cpu& c = cpus_[size_t(cpu)];
  const std::string_view parent = std::string_view(site.fn) == c.fn ? c.parent : c.fn;
  caller_event(cpu, to_ps(t), disabled ? preempt_disable_ : preempt_enable_, site.fn, parent);
}

void TraceDatRecorder::cpu_if(int cpu, sc_core::sc_time t, bool enabled) {
  Cpu& c = cpus_[size_t(cpu)];
  if (c.if_on == enabled) return;  // as trace_hardirqs_on/off: only the changes
  c.if_on = enabled;
  caller_event(cpu, to_ps(t), enabled ? irq_enable_ : irq_disable_, c.fn, c.parent);
}

const std::string& TraceDatRecorder::master_name(int master) const {
  static const std::string kDma = "DMA";
  return master >= 0 && size_t(master) < masters_.size() ? masters_[size_t(master)] : kDma;
}

void TraceDatRecorder::fsb_holdoff(int cpu, sc_core::sc_time from, sc_core::sc_time to,
                                   int master) {
  TraceRecord r;
  r.u64((to_ps(to) - to_ps(from)) / kPsPerNs).str(master_name(master));
  emit(cpu, to_ps(from), fsb_holdoff_, r);
}

void TraceDatRecorder::fifo_stall(int cpu, sc_core::sc_time from, sc_core::sc_time to) {
  TraceRecord r;
  r.u64((to_ps(to) - to_ps(from)) / kPsPerNs);
  emit(cpu, to_ps(from), fifo_stall_, r);
}

// A train is written once it can no longer be deferred (as in the timeline).
void TraceDatRecorder::pci_train(int master, sc_core::sc_time start, sc_core::sc_time end,
                                 sc_core::sc_time period, sc_core::sc_time tenure, uint64_t bytes) {
  if (auto it = pending_train_.find(master); it != pending_train_.end())
    write_train(master, it->second);
  pending_train_[master] = {to_ps(start), to_ps(end), to_ps(period), to_ps(tenure), bytes};
}

void TraceDatRecorder::pci_train_deferred(int master, sc_core::sc_time old_start,
                                          sc_core::sc_time start, sc_core::sc_time end) {
  auto it = pending_train_.find(master);
  if (it == pending_train_.end() || it->second.start != to_ps(old_start)) return;
  it->second.start = to_ps(start);
  it->second.end = to_ps(end);
}

void TraceDatRecorder::write_train(int master, const Train& t) {
  if (!window_.contains(t.start) || t.end <= t.start) return;
  const uint64_t bursts = t.period ? std::max<uint64_t>(1, (t.end - t.start) / t.period) : 1;
  TraceRecord r;
  r.u64((t.end - t.start) / kPsPerNs).u32(uint32_t(t.bytes)).u32(uint32_t(bursts));
  r.u32(uint32_t(t.period / kPsPerNs)).u32(uint32_t(t.tenure / kPsPerNs)).str(master_name(master));
  // The bus is no CPU's: its transfers go to CPU 0's buffer, in no task (pid 0).
  w_.record(0, t.start / kPsPerNs, dma_burst_, 0, 0, 0, r);
}

void TraceDatRecorder::finish(sc_core::sc_time) {
  for (const auto& [master, t] : pending_train_) write_train(master, t);
  pending_train_.clear();
  w_.finish();
}

}  // namespace latsim::platform::timeline
