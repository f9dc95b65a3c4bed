#include "kernel_sim/trace/kernel_blame.h"
#include <algorithm>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

KernelBlame::KernelBlame(Kernel& k, size_t journal_calls) : k_(k) {
  for (int cpu = 0; cpu < k.ncpus(); ++cpu) {
    PerCpu& pc = k.per_cpu(cpu);
    journals_.emplace_back(cpu, CallJournal::Code{&pc.last_fn, &pc.intr_now, &k.cpu_rq(cpu).curr},
                           *this, journal_calls);
  }
}

// Rare (a call a bus master, a port cycle, a spin or hlt stalled): out of call_end's way.
void KernelBlame::stalled_call(int cpu, CpuClass c, uint64_t start_ps, uint64_t end_ps,
                               int64_t port) {
  CallJournal& j = journals_[size_t(cpu)];
  // a stalled call also keeps its stalls and caller, five times an entry: fewer of them
  if (j.entries.size() >= j.fold_at || j.stalled.size() >= j.fold_at / 4) fold(cpu);
  CallJournal::Stalled& s = j.stalled.emplace_back();
  s.call.stalled = true;
  s.call.stalls = j.stalls;
  s.call.port = port;
  s.call.start_ps = start_ps;
  s.call.ps = end_ps - start_ps;
  s.who = caller(cpu, c);
  Entry& e = j.entries.emplace_back();
  e.start_ps = start_ps, e.end_ps = end_ps, e.fn = "", e.pid = -1;
  e.stalled = int32_t(j.stalled.size() - 1), e.intr = -1, e.prio = -1, e.c = c, e.critical = false;
  j.joinable = false;
}

BlameCaller KernelBlame::caller(int cpu, CpuClass c) {
  BlameCaller who;
  const PerCpu& pc = k_.per_cpu(cpu);
  const Task* t = k_.cpu_rq(cpu).curr;
  who.code = code_key(c, pc.last_fn, pc.intr_now, t ? t->pid : -1, t ? t->prio : -1,
                      journals_[size_t(cpu)].critical);
  who.spin = pc.spin_on;
  if (const BlameRequest* r = k_.block().active_request()) {
    who.disk = r->seq;
    // Kept for reading the ledger later: the block layer moves on to the next request.
    if (requests_.empty() || requests_.back().seq != r->seq) {
      requests_.push_back(*r);
      if (requests_.size() > kRequestsKept) requests_.pop_front();
    }
  }
  return who;
}

BlameKey KernelBlame::code_key(CpuClass c, const char* fn, int intr, int pid, int prio,
                               bool critical) {
  BlameKey code;
  switch (c) {
    case CpuClass::User:
      code.context = BlameContext::User;
      break;
    case CpuClass::System:
      code.context = BlameContext::Kernel;
      break;
    case CpuClass::Irq:
      code.context = intr == int(INTR_NMI) ? BlameContext::Nmi : BlameContext::Irq;
      code.irq = intr;
      break;
    case CpuClass::Softirq:
      code.context = BlameContext::Softirq;
      break;
    case CpuClass::Idle:
      code.context = BlameContext::Idle;
      break;
  }
  // User code is the task's own: no kernel function is running.
  code.fn = c == CpuClass::User ? "" : fn;
  code.pid = pid;
  code.prio = prio;
  code.critical = critical;
  return code;
}

void KernelBlame::replay(const CallJournal& j, size_t from, uint64_t start_ps, BlameLedger& l) {
  for (size_t i = from; i < j.entries.size(); ++i) {
    const Entry& e = j.entries[i];
    if (e.end_ps <= start_ps) continue;  // before a window's start
    if (e.stalled >= 0) {
      const CallJournal::Stalled& s = j.stalled[size_t(e.stalled)];
      charge_call(l, s.call.start_ps < start_ps ? s.call.tail(start_ps) : s.call, s.who);
    } else {
      l.charge(code_key(e.c, e.fn, e.intr, e.pid, e.prio, e.critical),
               e.end_ps - std::max(e.start_ps, start_ps));
    }
  }
}

void KernelBlame::fold(int cpu) {
  CallJournal& j = journals_[size_t(cpu)];
  if (j.critical) replay(j, j.section_mark, 0, j.section_folded);
  j.section_mark = 0;
  for (Window& w : open_) {
    if (!covers(w, cpu)) continue;
    if (w.folded.empty()) w.folded.resize(size_t(k_.ncpus()));
    replay(j, w.mark[size_t(cpu)], w.start_ps, w.folded[size_t(cpu)]);
    w.mark[size_t(cpu)] = 0;
  }
  j.entries.clear();
  j.stalled.clear();
  j.joinable = false;
}

void KernelBlame::arm(int cpu) {
  CallJournal& j = journals_[size_t(cpu)];
  j.joinable = false;  // an entry begun before a ledger's mark must not grow past it
  uint64_t from = j.critical ? 0 : kUnarmed;
  for (const Window& w : open_)
    if (covers(w, cpu)) from = std::min(from, w.start_ps);
  j.armed_from = from;
}

void KernelBlame::section_edge(int cpu, bool open) {
  CallJournal& j = journals_[size_t(cpu)];
  if (open) {
    if (j.armed_from == kUnarmed) j.entries.clear(), j.stalled.clear();  // nothing reads them
    j.section_mark = j.entries.size();
    j.section_folded.clear();
  }
  j.critical = open;
  arm(cpu);
}

std::vector<BlameItem> KernelBlame::section_items(int cpu) const {
  const CallJournal& j = journals_[size_t(cpu)];
  BlameLedger l = j.section_folded;
  replay(j, j.section_mark, 0, l);
  return l.items(this);
}

const Task* Kernel::task_by_pid(int pid) const {
  for (const auto& t : tasks_)
    if (t->pid == pid) return t.get();
  return nullptr;
}

int Kernel::open_blame_window(sc_time start) {
  return blame_ && start >= now() ? blame_->open_window(start, current().cpus_allowed) : -1;
}

void Kernel::close_blame_window(int id, const std::string& label, const char* measure) {
  if (blame_ && id >= 0) blame_->close_window(id, smp_processor_id(), label, measure, current());
}

int KernelBlame::open_window(const sc_core::sc_time& start, uint32_t cpus_allowed) {
  Window w;
  if (!spare_.empty()) {  // a closed window's: its memory is already there
    w = std::move(spare_.back());
    spare_.pop_back();
  }
  w.id = next_id_++;
  w.start_ps = start.value();
  w.cpus_allowed = cpus_allowed;
  w.mark.assign(size_t(k_.ncpus()), 0);
  for (BlameLedger& l : w.folded) l.clear();
  for (int cpu = 0; cpu < k_.ncpus(); ++cpu) {
    if (!covers(w, cpu)) continue;
    CallJournal& j = journals_[size_t(cpu)];
    if (j.armed_from == kUnarmed) j.entries.clear(), j.stalled.clear();  // nothing reads them
    w.mark[size_t(cpu)] = j.entries.size();
  }
  open_.push_back(std::move(w));
  for (int cpu = 0; cpu < k_.ncpus(); ++cpu)
    if (covers(open_.back(), cpu)) arm(cpu);
  return open_.back().id;
}

BlameLedger KernelBlame::window_ledger(const Window& w, int cpu) const {
  BlameLedger l = w.folded.empty() ? BlameLedger() : w.folded[size_t(cpu)];
  replay(journals_[size_t(cpu)], w.mark[size_t(cpu)], w.start_ps, l);
  return l;
}

void KernelBlame::close_window(int id, int cpu, const std::string& label, const char* measure,
                               const Task& woken) {
  const auto it =
      std::find_if(open_.begin(), open_.end(), [id](const Window& w) { return w.id == id; });
  if (it == open_.end()) return;
  const sc_core::sc_time start = sc_core::sc_time::from_value(it->start_ps), end = k_.now();
  if (!label.empty())
    keep_if_longest({label, measure, woken.pid, woken.prio, cpu, start, end, {}}, *it);
  const uint32_t cpus = it->cpus_allowed;
  spare_.push_back(std::move(*it));
  open_.erase(it);
  for (int c = 0; c < k_.ncpus(); ++c)
    if (cpus >> c & 1) arm(c);
}

void KernelBlame::keep_if_longest(WindowBlame w, const Window& open) {
  auto worst = std::find_if(worst_.begin(), worst_.end(),
                            [&](const WindowBlame& b) { return b.label == w.label; });
  if (worst == worst_.end()) worst = worst_.insert(worst_.end(), WindowBlame{w.label, w.measure});
  // Longest first; a tie keeps the earlier one.
  if (w.end > w.start && (worst->items.empty() || w.end - w.start > worst->end - worst->start)) {
    w.items = window_ledger(open, w.cpu).items(this);
    *worst = std::move(w);
  }
}

}  // namespace latsim::kernel

namespace latsim::kernel {

std::string KernelBlame::comm(int pid) const {
  const Task* t = k_.task_by_pid(pid);
  return t ? t->comm : std::string();
}

BlameRequest KernelBlame::request(uint64_t seq) const {
  for (const BlameRequest& r : requests_)
    if (r.seq == seq) return r;
  return {seq, 0, 0, false, -1, ""};
}

}  // namespace latsim::kernel
