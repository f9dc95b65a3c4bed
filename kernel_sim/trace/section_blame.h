#pragma once
// The kernel's side of the blame ledger (blame.h): while a traced section is open on a
// CPU, each of its CpuOps calls is charged to the section's ledger with what the kernel
// knows of the caller: the function, the context, the task, the lock being spun on.
#include "kernel_sim/sched/cputime.h"

namespace latsim::kernel {

class Kernel;

class SectionBlame : public CallBlame {
 public:
  explicit SectionBlame(Kernel& k) : k_(k) {}
  bool wants(int cpu) const override;
  void charge(int cpu, CpuClass c, BlameCall& call) override;

 private:
  Kernel& k_;
};

}  // namespace latsim::kernel
