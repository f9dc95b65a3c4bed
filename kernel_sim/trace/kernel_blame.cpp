#include "kernel_sim/trace/kernel_blame.h"
#include <algorithm>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

bool KernelBlame::wants(int cpu, const sc_core::sc_time& end) const {
  if (k_.tracer().blaming(cpu)) return true;
  for (const Window& w : open_)  // one that has begun by the call's end, on a CPU it watches
    if (w.start_ps < end.value() && (w.cpus_allowed >> cpu & 1)) return true;
  return false;
}

BlameCaller KernelBlame::caller(int cpu, CpuClass c, bool stalled) {
  const PerCpu& pc = k_.per_cpu(cpu);
  const Task* t = k_.cpu_rq(cpu).curr;
  BlameCaller who;
  BlameKey& code = who.code;
  switch (c) {
    case CpuClass::User:
      code.context = BlameContext::User;
      break;
    case CpuClass::System:
      code.context = BlameContext::Kernel;
      break;
    case CpuClass::Irq:
      code.context = pc.intr_now == int(INTR_NMI) ? BlameContext::Nmi : BlameContext::Irq;
      code.irq = pc.intr_now;
      break;
    case CpuClass::Softirq:
      code.context = BlameContext::Softirq;
      break;
    case CpuClass::Idle:
      code.context = BlameContext::Idle;
      break;
  }
  // User code is the task's own: no kernel function is running.
  code.fn = c == CpuClass::User ? "" : pc.last_fn;
  if (t) code.pid = t->pid;
  if (!stalled) return who;  // the code alone: no lock or request to name
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

void KernelBlame::charge(int cpu, CpuClass c, const BlameCall& call) {
  const BlameCaller who = caller(cpu, c, call.stalled);
  if (k_.tracer().blaming(cpu)) charge_call(k_.tracer().ledger(cpu), call, who);
  for (Window& w : open_) {
    if (!(w.cpus_allowed >> cpu & 1)) continue;
    if (w.start_ps <= call.start_ps)
      charge_call(w.cpus[size_t(cpu)], call, who);
    else if (w.start_ps < call.start_ps + call.ps)  // the window began inside this call
      charge_call(w.cpus[size_t(cpu)], call.tail(w.start_ps), who);
  }
}

const Task* Kernel::task_by_pid(int pid) const {
  for (const auto& t : tasks_)
    if (t->pid == pid) return t.get();
  return nullptr;
}

int Kernel::open_blame_window(sc_time due) {
  return blame_ && due >= now() ? blame_->open_window(due, current().cpus_allowed) : -1;
}

void Kernel::close_blame_window(int id, const std::string& label) {
  if (blame_ && id >= 0) blame_->close_window(id, smp_processor_id(), label, current().pid);
}

int KernelBlame::open_window(const sc_core::sc_time& start, uint32_t cpus_allowed) {
  open_.push_back(
      {next_id_, start.value(), cpus_allowed, std::vector<BlameLedger>(size_t(k_.ncpus()))});
  return next_id_++;
}

void KernelBlame::close_window(int id, int cpu, const std::string& label, int pid) {
  const auto it =
      std::find_if(open_.begin(), open_.end(), [id](const Window& w) { return w.id == id; });
  if (it == open_.end()) return;
  const sc_core::sc_time start = sc_core::sc_time::from_value(it->start_ps), end = k_.now();
  auto worst = std::find_if(worst_.begin(), worst_.end(),
                            [&](const WakeupBlame& b) { return b.label == label; });
  if (worst == worst_.end()) worst = worst_.insert(worst_.end(), WakeupBlame{label});
  // Longest first; a tie keeps the earlier one.
  if (end > start && (worst->items.empty() || end - start > worst->end - worst->start))
    *worst = {label, pid, cpu, start, end, it->cpus[size_t(cpu)].items(this)};
  open_.erase(it);
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
