#pragma once
// `make -jN` of a kernel tree: make forks compiler processes that compute in
// user mode, fault pages in, read sources from the page cache, and exit.
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

struct KernelBuildParams {
  int jobs = 2;
  double compile_s_min = 0.2, compile_s_max = 1.2;  // assumption: cc1 CPU time per file
  int rss_mb = 12;                                  // assumption: cc1 resident set
  int user_misses_per_ms = 1500;  // assumption: gcc-class L2 miss rate, ~2 per 1000 instructions
};

class KernelBuild : public Workload {
 public:
  KernelBuild(std::string name, const KernelBuildParams& p) : name_(std::move(name)), p_(p) {}
  const std::string& name() const override { return name_; }
  void start(Kernel& k) override;
  uint64_t compiles() const { return done_; }

 private:
  void make(Kernel& k);
  void cc1(Kernel& k, Rng& rng);
  void fork_child(Kernel& k);
  void exit_mmap(Kernel& k);
  std::string name_;
  KernelBuildParams p_;
  Task* make_ = nullptr;
  int running_ = 0;
  uint64_t done_ = 0, spawned_ = 0;
  Spinlock page_table_lock_{"mm->page_table_lock"};
};

}  // namespace latsim::kernel
