#pragma once
// arch/powerpc/sysdev/mpc52xx_pic.c (2.6.24): the MPC5200's interrupt controller from the
// kernel's side. mpc52xx_init_irq masks every source and routes critical interrupts to
// int#; mpc52xx_get_irq reads the encoded status (and, for the BestComm, the SDMA's
// IntPend) to name the pending line; the main, peripheral and SDMA irq_chips mask, ack and
// unmask their sources with a read-modify-write of the mask register. Hardware IRQ numbers
// are L1 << 6 | L2 (mpc52xx_pic.h); irq_create_mapping gives virqs in the order asked, from
// 16 (irq_alloc_virt's first), as a linear revmap. Every register access is an MMIO cycle.
#include <array>
#include <cstdint>
#include "kernel_sim/irq/irq_chip.h"
#include "kernel_sim/irq/irq_desc.h"

namespace latsim::kernel {

class Kernel;

class Mpc52xxPic : public IrqController {
 public:
  // MBAR as the boot loader set it; the controller's and the SDMA's blocks under it (Linux
  // lite5200.dts: pic@500, dma@1200).
  static constexpr uint64_t kMbar = 0xf0000000;
  static constexpr uint64_t kIntr = kMbar + 0x500, kSdma = kMbar + 0x1200;
  // struct mpc52xx_intr (include/asm-powerpc/mpc52xx.h) and struct mpc52xx_sdma offsets.
  static constexpr uint32_t PER_MASK = 0x00, PER_PRI1 = 0x04, PER_PRI2 = 0x08, PER_PRI3 = 0x0c,
                            CTRL = 0x10, MAIN_MASK = 0x14, MAIN_PRI1 = 0x18, MAIN_PRI2 = 0x1c,
                            ENC_STATUS = 0x24;
  static constexpr uint32_t SDMA_INT_PEND = 0x14, SDMA_INT_MASK = 0x18;
  // mpc52xx_pic.h: the hardware IRQ number's levels.
  enum L1 : unsigned { L1_CRIT = 0, L1_MAIN = 1, L1_PERP = 2, L1_SDMA = 3 };
  static constexpr unsigned L1_OFFSET = 6, L2_MASK = 0x3f;
  static constexpr unsigned hwirq(unsigned l1, unsigned l2) { return l1 << L1_OFFSET | l2; }
  static constexpr unsigned kFirstVirq = 16;  // irq_alloc_virt: NUM_ISA_INTERRUPTS

  explicit Mpc52xxPic(Kernel& k);
  void init_irq();         // mpc52xx_init_irq
  int get_irq() override;  // mpc52xx_get_irq: the virq, or NO_IRQ_IGNORE
  // irq_of_parse_and_map / irq_create_mapping: the virq of a hardware IRQ, its chip set
  // (mpc52xx_irqhost_map: main, peripheral or SDMA; every source level, handle_level_irq).
  unsigned irq_create_mapping(unsigned hw);

 private:
  // One irq_chip of mpc52xx_pic.c: the mask register it sets a bit in to mask (the PIC's
  // and the SDMA's IntMask alike: 1 = masked).
  class Chip : public IrqChip {
   public:
    Chip(Mpc52xxPic& pic, const char* name, uint64_t mask_reg, bool acks)
        : pic_(pic), name_(name), mask_reg_(mask_reg), acks_(acks) {}
    const char* typename_() const override { return name_; }
    void mask(unsigned irq, const char* parent) override;
    void unmask(unsigned irq, const char* parent) override;
    void ack(unsigned irq, const char* parent) override;

   private:
    uint32_t bit(unsigned irq) const;
    Mpc52xxPic& pic_;
    const char* name_;
    uint64_t mask_reg_;
    bool acks_;  // the SDMA chip's ack: IntPend write-one-to-clear
  };
  void io_be_modify(uint64_t reg, uint32_t set, uint32_t clear, const char* fn);
  unsigned l2(unsigned irq) const { return hw_[irq] & L2_MASK; }
  unsigned l1(unsigned irq) const { return hw_[irq] >> L1_OFFSET; }

  Kernel& k_;
  Chip main_, periph_, sdma_;
  std::array<int, 256> revmap_;
  std::array<unsigned, NR_IRQS> hw_{};
  unsigned next_virq_ = kFirstVirq;
};

}  // namespace latsim::kernel
