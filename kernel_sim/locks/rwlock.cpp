// read_lock/write_lock (2.6.9 SMP + preempt): preemption off while held; the
// spin is against holders on the other CPU.
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

void Kernel::read_lock(RwLock& l, const char* parent) {
  fn("read_lock", parent, 20);
  preempt_disable({"read_lock", "lock"});
  const int c = smp_processor_id();
  l.acquisitions++;
  if (l.writer >= 0 && l.writer != c) {
    l.contended++;
    const sc_time t0 = now();
    while (l.writer >= 0)
      if (!spin_until(l.released, l.name, l.writer)) handle_interrupt();
    l.spin_total += now() - t0;
  }
  l.readers++;
  lock_line(l.line());
}

void Kernel::read_unlock(RwLock& l, const CodeSite& site) {
  l.readers--;
  l.released.release();
  preempt_enable(site);
}

void Kernel::write_lock(RwLock& l, const char* parent) {
  fn("write_lock", parent, 20);
  preempt_disable({"write_lock", "lock"});
  const int c = smp_processor_id();
  l.acquisitions++;
  if (l.writer >= 0 || l.readers > 0) {
    l.contended++;
    const sc_time t0 = now();
    while (l.writer >= 0 || l.readers > 0)
      if (!spin_until(l.released, l.name, l.writer)) handle_interrupt();
    l.spin_total += now() - t0;
  }
  l.writer = c;
  lock_line(l.line());
}

void Kernel::write_unlock(RwLock& l, const CodeSite& site) {
  l.writer = -1;
  l.released.release();
  preempt_enable(site);
}

}  // namespace latsim::kernel
