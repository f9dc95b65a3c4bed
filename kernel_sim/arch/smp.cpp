// arch/i386/kernel/smp.c (2.6.9): TLB shootdown. flush_tlb_others sends
// INVALIDATE_TLB_VECTOR to the CPUs in the mm's cpu_vm_mask and spins, with
// preemption off, until each has cleared its bit in flush_cpumask, which a CPU
// does only from smp_invalidate_interrupt: a target with interrupts off, or
// stalled mid-instruction on the bus, holds the sender for as long.
#include <iterator>
#include <unordered_set>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

uint32_t Kernel::mm_cpumask(int mm) const {
  auto it = mm_cpumask_.find(mm);
  return it == mm_cpumask_.end() ? 0 : it->second;
}

// include/asm-i386/mmu_context.h switch_mm: a kernel thread keeps the previous
// page tables (enter_lazy_tlb) and so stays in that mm's cpu_vm_mask. For a new mm,
// cpu_clear(cpu, prev->cpu_vm_mask) and cpu_set(cpu, next->cpu_vm_mask) are locked
// writes, load_cr3(next->pgd) reads the pgd pointer and the LDT test reads both contexts
// (next to cpu_vm_mask); for the same mm the SMP branch still does cpu_test_and_set.
// The CR3 load flushes no kernel translation: pagetable_init sets CR4.PGE and maps the
// kernel with global 4 MB pages, so next's TLB refill comes later, in user mode.
void Kernel::switch_mm(int cpu, const Task& next) {
  auto& pc = pcpu_[size_t(cpu)];
  if (next.mm == 0) return;
  const uint64_t lines = uint64_t(p_.switch_mm_lines);
  if (pc.active_mm == next.mm) {
    if (lines) shared(&mm_lines_[next.mm].cpu_vm_mask, 1, true);
    return;
  }
  if (lines) {
    MmLines& m = mm_lines_[next.mm];
    uint64_t fills = line_fills(&m.pgd, lines - 1, false) + line_fills(&m.cpu_vm_mask, 1, true);
    if (pc.active_mm) fills += line_fills(&mm_lines_[pc.active_mm].cpu_vm_mask, 1, true);
    exec(0, fills);
  }
  if (pc.active_mm) mm_cpumask_[pc.active_mm] &= ~(1u << cpu);
  mm_cpumask_[next.mm] |= 1u << cpu;
  pc.active_mm = next.mm;
}

// leave_mm: a lazy CPU drops the mm (loads swapper_pg_dir), so it gets no more IPIs for it.
void Kernel::leave_mm(int cpu) {
  auto& pc = pcpu_[size_t(cpu)];
  if (pc.active_mm && p_.switch_mm_lines > 0)  // cpu_clear: a locked write of the mask
    shared(&mm_lines_[pc.active_mm].cpu_vm_mask, 1, true);
  if (pc.active_mm) mm_cpumask_[pc.active_mm] &= ~(1u << cpu);
  pc.active_mm = 0;
}

void Kernel::flush_tlb_mm(int mm, const char* parent) {
  fn("flush_tlb_mm", parent, 200, 1);
  preempt_disable({"flush_tlb_mm", "lock"});
  const int c = smp_processor_id();
  const bool exiting = current().mm != mm;  // exit_mm already set tsk->mm = NULL
  if (pcpu_[size_t(c)].active_mm == mm) {
    if (exiting)
      leave_mm(c);
    else
      exec(40, 0);  // local_flush_tlb: reload CR3
  }
  const uint32_t others = mm_cpumask(mm) & ~(1u << c);
  if (others) flush_tlb_others(others, mm, "flush_tlb_mm");
  preempt_enable({"flush_tlb_mm", "unlock"});
  if (exiting) mm_cpumask_.erase(mm);  // mmdrop: the mm is gone with its last user
}

// Only a task's mm or a CPU's active_mm reach an mm's state, and ids are not reused; a
// CPU's bit in mm_cpumask_ is set exactly while the mm is its active_mm.
void Kernel::drop_unused_mms() {
  std::unordered_set<int> held;
  for (const auto& t : tasks_) held.insert(t->mm);
  for (const PerCpu& pc : pcpu_) held.insert(pc.active_mm);
  for (auto it = mm_lines_.begin(); it != mm_lines_.end();) {
    if (held.count(it->first)) {
      ++it;
      continue;
    }
    forget(&it->second, sizeof(MmLines));
    it = mm_lines_.erase(it);
  }
  for (auto it = mm_cpumask_.begin(); it != mm_cpumask_.end();)
    it = held.count(it->first) || it->second ? std::next(it) : mm_cpumask_.erase(it);
}

void Kernel::flush_tlb_others(uint32_t cpumask, int mm, const char* parent) {
  fn("flush_tlb_others", parent, 60, 1);
  spin_lock(tlbstate_lock_, "flush_tlb_others");
  flush_mm_ = mm;
  flush_cpumask_ = cpumask;
  tlb_stats_.flushes++;
  fn("send_IPI_mask_bitmask", "flush_tlb_others", 80, 1);
  for (int cpu = 0; cpu < ncpus(); ++cpu) {
    if (!(cpumask & (1u << cpu))) continue;
    this_cpu().send_ipi(cpu, INVALIDATE_TLB_VECTOR);
    tlb_stats_.ipis++;
  }
  // while (!cpus_empty(flush_cpumask)) mb(); -- interrupts stay enabled meanwhile.
  const sc_time t0 = now();
  while (flush_cpumask_) {
    if (!spin_until(tlb_ack_, "flush_cpumask", -1)) handle_interrupt();
  }
  const sc_time waited = now() - t0;
  tlb_stats_.last_wait = waited;
  tlb_stats_.wait_total += waited;
  if (waited > tlb_stats_.wait_max) tlb_stats_.wait_max = waited;
  LATSIM_DEBUG(mm, log_who(), "TLB shootdown of mm {} to cpus {:#x}: waited {} ns", mm, cpumask,
               waited.value() / 1000);
  flush_mm_ = 0;
  spin_unlock(tlbstate_lock_, {"flush_tlb_others", "unlock"});
}

void Kernel::smp_invalidate_interrupt() {
  const int c = smp_processor_id();
  auto& pc = pcpu_[size_t(c)];
  fn("smp_invalidate_interrupt", pc.last_fn, 60, 1);
  if (!(flush_cpumask_ & (1u << c))) {  // not for us (any more): just end the interrupt
    this_cpu().apic_write(0xb0, 0);
    return;
  }
  if (flush_mm_ == pc.active_mm) {
    if (current().mm == pc.active_mm)
      exec(40, 0);  // local_flush_tlb: reload CR3
    else
      leave_mm(c);  // lazy: drop the mm instead of flushing for it
  }
  this_cpu().apic_write(0xb0, 0);  // ack_APIC_irq
  flush_cpumask_ &= ~(1u << c);    // the acknowledgement the sender spins on
  tlb_ack_.release();
}

}  // namespace latsim::kernel
