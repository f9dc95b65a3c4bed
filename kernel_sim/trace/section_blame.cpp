#include "kernel_sim/trace/section_blame.h"
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

bool SectionBlame::wants(int cpu) const { return k_.tracer().blaming(cpu); }

void SectionBlame::charge(int cpu, CpuClass c, BlameCall& call) {
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
  if (t) code.pid = t->pid, who.comm = &t->comm;
  who.spin = pc.spin_on;
  who.holder_comm = &pc.spin_holder_comm;
  who.disk = k_.block().active_request();
  charge_call(k_.tracer().ledger(cpu), call, who);
}

}  // namespace latsim::kernel
