#pragma once
// arch/powerpc/sysdev/bestcomm/bestcomm.h (2.6.24): a BestComm task's buffer descriptor
// ring in the engine's SRAM, walked by the CPU with index (next to submit) and outdex
// (next to retrieve): bcom_buffer_done, bcom_retrieve_buffer, bcom_prepare_next_buffer,
// bcom_submit_next_buffer, bcom_enable. The SDMA interrupt's mask and ack are
// mpc52xx_pic.c's (arch/powerpc/sysdev/mpc52xx_pic.h).
// Every descriptor access is a load or store to the on-chip SRAM.
#include <cstdint>

namespace latsim::kernel {

class Kernel;

class BcomTask {
 public:
  static constexpr uint32_t BCOM_BD_READY = 0x40000000;
  static constexpr uint32_t kBdBytes = 8;  // struct bcom_fec_bd: status, skb_pa
  static constexpr uint32_t TCR0 = 0x1c;
  static constexpr uint16_t TASK_ENABLE = 0x8000;

  // sdma: the SDMA registers' address; sram: the SRAM's; bd_base: the ring's SRAM offset.
  BcomTask(Kernel& k, uint64_t sdma, uint64_t sram, unsigned tasknum, uint32_t bd_base,
           uint32_t num_bd, bool enable_on_submit);
  void reset();  // bcom_fec_{rx,tx}_reset: the task's variables, every descriptor cleared
  bool queue_empty() const { return index_ == outdex_; }
  bool queue_full() const { return (index_ + 1) % num_bd_ == outdex_; }
  bool buffer_done();              // the oldest submitted descriptor no longer READY
  uint32_t retrieve_buffer();      // its status; outdex advances
  uint64_t prepare_next_buffer();  // the descriptor at index, its status cleared
  void submit_next_buffer();       // READY set, index advances, the task enabled if flagged
  void enable();                   // bcom_enable: TCR's TASK_ENABLE
  unsigned tasknum() const { return tasknum_; }

 private:
  uint64_t bd(uint32_t i) const { return sram_ + bd_base_ + i * kBdBytes; }
  Kernel& k_;
  uint64_t sdma_, sram_;
  unsigned tasknum_;
  uint32_t bd_base_, num_bd_;
  bool enable_on_submit_;
  uint32_t index_ = 0, outdex_ = 0;
};

}  // namespace latsim::kernel
