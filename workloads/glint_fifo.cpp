#include "workloads/glint_fifo.h"
#include <algorithm>

namespace latsim::workloads {

const char* policy_name(FifoPolicy p) {
  switch (p) {
    case FifoPolicy::Rude:
      return "rude";
    case FifoPolicy::Poll:
      return "poll";
    case FifoPolicy::Cached:
      return "cached";
  }
  return "?";
}

GlintFifo::GlintFifo(FifoPolicy policy, uint64_t base, unsigned fifo_size, uint64_t write_cycles,
                     uint64_t spin_cycles, Ops ops)
    : policy_(policy),
      base_(base),
      fifo_size_(fifo_size),
      write_cycles_(write_cycles),
      spin_cycles_(spin_cycles),
      ops_(std::move(ops)) {}

unsigned GlintFifo::wait_for(unsigned n) {
  for (;;) {
    const unsigned space = ops_.readl(base_ + pm2::InFIFOSpace);
    s_.status_reads++;
    if (space >= n) return space;
    s_.spin_reads++;
    ops_.run(spin_cycles_);  // the loop's compare and branch
  }
}

void GlintFifo::wait(unsigned n) {
  if (policy_ != FifoPolicy::Cached) return;
  if (cached_ >= n) {
    cached_ -= n;  // the copy is never above the truth: the FIFO only drains meanwhile
    return;
  }
  cached_ = std::min(wait_for(n), fifo_size_) - n;  // clamped, as XFree86 does for PM3 bugs
}

void GlintFifo::write(uint32_t value, uint64_t reg) {
  ops_.run(write_cycles_);  // compute the value, form the address
  if (policy_ == FifoPolicy::Poll) wait_for(1);
  ops_.writel(value, base_ + reg);
  s_.writes++;
}

}  // namespace latsim::workloads
