#include "kernel_sim/arch/powerpc/sysdev/mpc52xx_pic.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
// mpc52xx_get_irq's encoded status fields.
constexpr uint32_t ENC_CSE = 0x00000400, ENC_MSE = 0x00200000, ENC_PSE = 0x20000000;
constexpr unsigned CRIT_HI_PERIPHERAL = 2, MAIN_LO_PERIPHERAL = 4, PER_BESTCOMM = 0;
}  // namespace

Mpc52xxPic::Mpc52xxPic(Kernel& k)
    : k_(k),
      main_(*this, "MPC52xx Main", kIntr + MAIN_MASK, false),
      periph_(*this, "MPC52xx Peripherals", kIntr + PER_MASK, false),
      sdma_(*this, "MPC52xx SDMA", kSdma + SDMA_INT_MASK, true) {
  revmap_.fill(IrqController::NO_IRQ_IGNORE);
}

// in_be32 then out_be32 of the register with bits set and cleared (io_be_setbit/clrbit).
void Mpc52xxPic::io_be_modify(uint64_t reg, uint32_t set, uint32_t clear, const char* fn) {
  k_.fn(set ? "io_be_setbit" : "io_be_clrbit", fn, 10);
  k_.writel((k_.readl(reg) | set) & ~clear, reg);
}

// Disable all interrupt sources, route critical ones to int# (CEb), zero the priorities.
void Mpc52xxPic::init_irq() {
  k_.fn("mpc52xx_init_irq", "init_IRQ", 200, 2);
  k_.writel(0xffffffff, kSdma + SDMA_INT_PEND);  // 1 means clear pending
  k_.writel(0xffffffff, kSdma + SDMA_INT_MASK);  // 1 means disabled
  k_.writel(0x7ffffc00, kIntr + PER_MASK);       // 1 means disabled; the BestComm's left on
  k_.writel(0x00010fff, kIntr + MAIN_MASK);      // 1 means disabled
  const uint32_t ctrl = k_.readl(kIntr + CTRL) & 0x00ff0000;             // keeps IRQ[0-3] config
  k_.writel(ctrl | 0x0f000000 | 0x00001000 | 0x00000001, kIntr + CTRL);  // clear, MEE, CEb
  for (const uint32_t pri : {PER_PRI1, PER_PRI2, PER_PRI3, MAIN_PRI1, MAIN_PRI2})
    k_.writel(0, kIntr + pri);
}

unsigned Mpc52xxPic::irq_create_mapping(unsigned hw) {
  if (revmap_[hw] >= 0) return unsigned(revmap_[hw]);
  const unsigned virq = next_virq_++;
  revmap_[hw] = int(virq);
  hw_[virq] = hw;
  // mpc52xx_irqhost_map: critical and IRQ[1-3] are the external-IRQ chip (not modelled).
  const unsigned level1 = hw >> L1_OFFSET;
  k_.irq_desc(virq).chip = level1 == L1_SDMA ? &sdma_ : level1 == L1_PERP ? &periph_ : &main_;
  return virq;
}

int Mpc52xxPic::get_irq() {
  k_.fn("mpc52xx_get_irq", "do_IRQ", 40, 1);
  uint32_t status = k_.readl(kIntr + ENC_STATUS);
  unsigned l1 = 0, l2 = 0;
  if (status & ENC_CSE) {  // critical
    l2 = (status >> 8) & 0x3;
    l1 = L1_CRIT;
    if (l2 == CRIT_HI_PERIPHERAL) l1 = L1_PERP;  // high priority peripheral
  } else if (status & ENC_MSE) {                 // main
    l2 = (status >> 16) & 0x1f;
    l1 = L1_MAIN;
    if (l2 == MAIN_LO_PERIPHERAL) l1 = L1_PERP;  // low priority peripheral
  } else if (status & ENC_PSE) {
    l1 = L1_PERP;
  } else {
    return IrqController::NO_IRQ_IGNORE;
  }
  if (l1 == L1_PERP) {
    l2 = (status >> 24) & 0x1f;
    if (l2 == PER_BESTCOMM) {  // ffs(IntPend) - 1: the lowest pending task, masked or not
      status = k_.readl(kSdma + SDMA_INT_PEND);
      if (!status) return IrqController::NO_IRQ_IGNORE;
      l1 = L1_SDMA;
      l2 = unsigned(__builtin_ctz(status));
    }
  }
  return revmap_[hwirq(l1, l2)];  // irq_linear_revmap
}

// mpc52xx_main_mask: bit 15 - l2 as 2.6.24 has it; peripherals 31 - l2; the SDMA task's l2.
uint32_t Mpc52xxPic::Chip::bit(unsigned irq) const {
  const unsigned n = pic_.l2(irq);
  if (this == &pic_.main_) return 1u << (15 - n);
  if (this == &pic_.periph_) return 1u << (31 - n);
  return 1u << n;
}

void Mpc52xxPic::Chip::mask(unsigned irq, const char* parent) {
  const char* fn = this == &pic_.sdma_   ? "mpc52xx_sdma_mask"
                   : this == &pic_.main_ ? "mpc52xx_main_mask"
                                         : "mpc52xx_periph_mask";
  pic_.k_.fn(fn, parent, 20);
  pic_.io_be_modify(mask_reg_, bit(irq), 0, fn);
}

void Mpc52xxPic::Chip::unmask(unsigned irq, const char* parent) {
  const char* fn = this == &pic_.sdma_   ? "mpc52xx_sdma_unmask"
                   : this == &pic_.main_ ? "mpc52xx_main_unmask"
                                         : "mpc52xx_periph_unmask";
  pic_.k_.fn(fn, parent, 20);
  pic_.io_be_modify(mask_reg_, 0, bit(irq), fn);
}

// mpc52xx_sdma_ack: IntPend is write-one-to-clear; the main and peripheral chips have none.
void Mpc52xxPic::Chip::ack(unsigned irq, const char* parent) {
  if (!acks_) return;
  pic_.k_.fn("mpc52xx_sdma_ack", parent, 20);
  pic_.k_.writel(bit(irq), kSdma + SDMA_INT_PEND);
}

}  // namespace latsim::kernel
