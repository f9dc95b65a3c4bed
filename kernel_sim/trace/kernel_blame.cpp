#include "kernel_sim/trace/kernel_blame.h"
#include <algorithm>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

KernelBlame::KernelBlame(Kernel& k) : k_(k), runs_(size_t(k.ncpus())) {}

void KernelBlame::call_end(CpuOps& hw, int cpu, CpuClass c, uint64_t start_ps, uint64_t end_ps,
                           int64_t port) {
  Run& run = runs_[size_t(cpu)];
  if (!wants(cpu, end_ps)) {
    hw.take_call_stalls(nullptr);  // nobody reads this call's
    if (run.open) flush(cpu);
    return;
  }
  if (!hw.take_call_stalls(&stalls_)) {  // all of it the code's
    const PerCpu& pc = k_.per_cpu(cpu);
    const Task* t = k_.cpu_rq(cpu).curr;
    const int pid = t ? t->pid : -1;
    Code& rc = run.code;  // compared and set field by field: a Code built aside and copied
                          // whole stalls store forwarding
    if (run.open && rc.c == c && rc.fn == pc.last_fn && rc.intr == pc.intr_now && rc.task == t &&
        rc.pid == pid) {
      run.end_ps = end_ps;  // calls are back to back: time passes only inside them
      return;
    }
    if (run.open) flush(cpu);
    run.open = true;
    rc.c = c, rc.fn = pc.last_fn, rc.intr = pc.intr_now, rc.task = t, rc.pid = pid;
    rc.critical = k_.tracer().blaming(cpu);  // a section's edges flush: constant in a run
    run.start_ps = start_ps, run.end_ps = end_ps;
    return;
  }
  if (run.open) flush(cpu);
  charge_stalled(cpu, c, start_ps, end_ps, port);
}

// Rare (a call a bus master, a port cycle, a spin or hlt stalled): out of call_end's way.
void KernelBlame::charge_stalled(int cpu, CpuClass c, uint64_t start_ps, uint64_t end_ps,
                                 int64_t port) {
  BlameCall call;
  call.stalled = true;
  call.stalls = stalls_;
  call.port = port;
  call.start_ps = start_ps;
  call.ps = end_ps - start_ps;
  charge(cpu, c, call);
}

void KernelBlame::flush(int cpu) {
  Run& run = runs_[size_t(cpu)];
  if (!run.open) return;
  run.open = false;
  // The key is built in the first ledger's slot and copied from there: built on the stack
  // with narrow stores and copied wide, it stalls store forwarding.
  const BlameKey* code = nullptr;
  auto charge = [&](BlameLedger& l, uint64_t ps) {
    if (ps == 0) return;
    BlameKey& k = l.append(ps);
    if (code)
      k = *code;
    else
      code_key(run.code, k), code = &k;
  };
  if (k_.tracer().blaming(cpu)) charge(k_.tracer().ledger(cpu), run.end_ps - run.start_ps);
  const std::vector<BlameLedger>* last = nullptr;
  for (Window& w : open_) {  // a window that began inside the run gets the part after
    if (!(w.cpus_allowed >> cpu & 1) || w.start_ps >= run.end_ps || w.cpus.get() == last) continue;
    last = w.cpus.get();
    charge((*w.cpus)[size_t(cpu)], run.end_ps - std::max(w.start_ps, run.start_ps));
  }
}

bool KernelBlame::wants(int cpu, uint64_t end_ps) const {
  if (k_.tracer().blaming(cpu)) return true;
  for (const Window& w : open_)  // one that has begun by the call's end, on a CPU it watches
    if (w.start_ps < end_ps && (w.cpus_allowed >> cpu & 1)) return true;
  return false;
}

KernelBlame::Code KernelBlame::code_now(int cpu, CpuClass c) const {
  const PerCpu& pc = k_.per_cpu(cpu);
  const Task* t = k_.cpu_rq(cpu).curr;
  return {c, pc.last_fn, pc.intr_now, t, t ? t->pid : -1, k_.tracer().blaming(cpu)};
}

void KernelBlame::code_key(const Code& now, BlameKey& code) {
  code = BlameKey{};
  switch (now.c) {
    case CpuClass::User:
      code.context = BlameContext::User;
      break;
    case CpuClass::System:
      code.context = BlameContext::Kernel;
      break;
    case CpuClass::Irq:
      code.context = now.intr == int(INTR_NMI) ? BlameContext::Nmi : BlameContext::Irq;
      code.irq = now.intr;
      break;
    case CpuClass::Softirq:
      code.context = BlameContext::Softirq;
      break;
    case CpuClass::Idle:
      code.context = BlameContext::Idle;
      break;
  }
  // User code is the task's own: no kernel function is running.
  code.fn = now.c == CpuClass::User ? "" : now.fn;
  code.pid = now.pid;
  code.critical = now.critical;
}

BlameCaller KernelBlame::caller(int cpu, CpuClass c) {
  BlameCaller who;
  code_key(code_now(cpu, c), who.code);
  who.spin = k_.per_cpu(cpu).spin_on;
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

void KernelBlame::charge(int cpu, CpuClass c, const BlameCall& call) {
  const BlameCaller who = caller(cpu, c);
  if (k_.tracer().blaming(cpu)) charge_call(k_.tracer().ledger(cpu), call, who);
  const std::vector<BlameLedger>* last = nullptr;
  for (Window& w : open_) {
    if (!(w.cpus_allowed >> cpu & 1) || w.cpus.get() == last) continue;
    last = w.cpus.get();
    BlameLedger& l = (*w.cpus)[size_t(cpu)];
    if (w.start_ps <= call.start_ps)
      charge_call(l, call, who);
    else if (w.start_ps < call.start_ps + call.ps)  // the window began inside this call
      charge_call(l, call.tail(w.start_ps), who);
  }
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
  if (blame_ && id >= 0)
    blame_->close_window(id, smp_processor_id(), label, measure, current().pid);
}

int KernelBlame::open_window(const sc_core::sc_time& start, uint32_t cpus_allowed) {
  for (int cpu = 0; cpu < k_.ncpus(); ++cpu) flush(cpu);  // runs so far are not the window's
  std::shared_ptr<std::vector<BlameLedger>> ledgers;
  if (!open_.empty() && open_.back().start_ps == start.value() &&
      open_.back().cpus_allowed == cpus_allowed) {
    ledgers = open_.back().cpus;  // nothing charged to it yet: its start has not passed
  } else if (!spare_.empty()) {   // a closed window's, cleared: its memory is already there
    ledgers = std::move(spare_.back());
    spare_.pop_back();
  } else {
    ledgers = std::make_shared<std::vector<BlameLedger>>(size_t(k_.ncpus()));
  }
  open_.push_back({next_id_, start.value(), cpus_allowed, std::move(ledgers)});
  return next_id_++;
}

void KernelBlame::close_window(int id, int cpu, const std::string& label, const char* measure,
                               int pid) {
  const auto it =
      std::find_if(open_.begin(), open_.end(), [id](const Window& w) { return w.id == id; });
  if (it == open_.end()) return;
  flush(cpu);
  const sc_core::sc_time start = sc_core::sc_time::from_value(it->start_ps), end = k_.now();
  if (!label.empty())
    keep_if_longest({label, measure, pid, cpu, start, end, {}}, (*it->cpus)[size_t(cpu)]);
  if (it->cpus.use_count() == 1) {  // no other window shares it
    for (BlameLedger& l : *it->cpus) l.clear();
    spare_.push_back(std::move(it->cpus));
  }
  open_.erase(it);
}

void KernelBlame::keep_if_longest(WindowBlame w, const BlameLedger& ledger) {
  auto worst = std::find_if(worst_.begin(), worst_.end(),
                            [&](const WindowBlame& b) { return b.label == w.label; });
  if (worst == worst_.end()) worst = worst_.insert(worst_.end(), WindowBlame{w.label, w.measure});
  // Longest first; a tie keeps the earlier one.
  if (w.end > w.start && (worst->items.empty() || w.end - w.start > worst->end - worst->start)) {
    w.items = ledger.items(this);
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
