#include "kernel_sim/arch/powerpc/sysdev/bestcomm.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

BcomTask::BcomTask(Kernel& k, uint64_t sdma, uint64_t sram, unsigned tasknum, uint32_t bd_base,
                   uint32_t num_bd, bool enable_on_submit)
    : k_(k),
      sdma_(sdma),
      sram_(sram),
      tasknum_(tasknum),
      bd_base_(bd_base),
      num_bd_(num_bd),
      enable_on_submit_(enable_on_submit) {}

// The task's variable table (the model's: ring base and length at SRAM 8 * tasknum).
void BcomTask::reset() {
  k_.writel(bd_base_, sram_ + 8 * tasknum_);
  k_.writel(num_bd_, sram_ + 8 * tasknum_ + 4);
  for (uint32_t i = 0; i < num_bd_; ++i) k_.writel(0, bd(i));  // memset of the ring
  index_ = outdex_ = 0;
}

bool BcomTask::buffer_done() {
  if (queue_empty()) return false;
  return !(k_.readl(bd(outdex_)) & BCOM_BD_READY);
}

uint32_t BcomTask::retrieve_buffer() {
  const uint32_t status = k_.readl(bd(outdex_));
  outdex_ = (outdex_ + 1) % num_bd_;
  return status;
}

uint64_t BcomTask::prepare_next_buffer() {
  k_.writel(0, bd(index_));  // cleanup last status
  return bd(index_);
}

void BcomTask::submit_next_buffer() {
  const uint64_t a = bd(index_);
  k_.writel(k_.readl(a) | BCOM_BD_READY, a);
  index_ = (index_ + 1) % num_bd_;
  if (enable_on_submit_) enable();
}

// out_be16 of TCR | TASK_ENABLE; the CPU port's MMIO is dword-wide: the model's TCR takes
// the low half.
void BcomTask::enable() {
  const uint64_t tcr = sdma_ + TCR0 + 2 * tasknum_;
  k_.writel((k_.readl(tcr) & 0xffff) | TASK_ENABLE, tcr);
}

}  // namespace latsim::kernel
