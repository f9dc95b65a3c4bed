#include "platform/latencytest_probe.h"
#include <string>
#include "kernel_sim/kernel.h"
#include "platform/machine.h"

namespace latsim::platform {

workloads::CpuCounters cpu_loop_counters(const Machine& m, kernel::Kernel& k, int cpu) {
  using kernel::CpuClass;
  auto ms = [](const sc_core::sc_time& t) { return t.to_seconds() * 1e3; };
  workloads::CpuCounters c;
  const auto& t = k.cpu_times(cpu);
  c.emplace_back("user_ms", ms(t[CpuClass::User]));
  c.emplace_back("kernel_ms", ms(t[CpuClass::System]));
  c.emplace_back("irq_ms", ms(t[CpuClass::Irq]));
  c.emplace_back("softirq_ms", ms(t[CpuClass::Softirq]));
  c.emplace_back("idle_ms", ms(t[CpuClass::Idle]));
  // Outermost interrupts by source, nested ones (an NMI in a handler) included.
  const auto& in = k.per_cpu(cpu).intr_time;
  for (unsigned irq = 0; irq < kernel::NR_IRQS; ++irq)
    c.emplace_back("irq" + std::to_string(irq) + "_ms", ms(in[irq]));
  c.emplace_back("local_timer_ms", ms(in[kernel::INTR_LOC]));
  c.emplace_back("nmi_ms", ms(in[kernel::INTR_NMI]));
  c.emplace_back("ipi_ms", ms(in[kernel::INTR_IPI]));
  const auto& st = m.cpus[size_t(cpu)]->stats();
  c.emplace_back("stall_memory_ms", ms(st.stall.memory));  // misses held off by a bus master
  c.emplace_back("stall_pci_ms", ms(st.stall.pci));
  c.emplace_back("stall_isa_ms", ms(st.stall.isa));
  c.emplace_back("stall_spin_ms", ms(st.stall.spin));
  c.emplace_back("stall_video_fifo_ms", ms(st.stall.video_fifo));
  c.emplace_back("stall_smm_ms", ms(st.stall.smm));  // the BIOS's SMI handler
  c.emplace_back("smis", double(st.smis));
  c.emplace_back("interrupts", double(st.interrupts));
  c.emplace_back("nmis", double(st.nmis));
  c.emplace_back("io_accesses", double(st.io_accesses));
  c.emplace_back("misses", double(st.misses));
  c.emplace_back("context_switches", double(k.cpu_rq(cpu).nr_switches));
  return c;
}

}  // namespace latsim::platform
