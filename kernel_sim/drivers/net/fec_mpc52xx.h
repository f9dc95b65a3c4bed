#pragma once
// drivers/net/fec_mpc52xx/fec.c (2.6.24) CPU side: mpc52xx_fec_open (the BestComm tasks
// reset, 256 receive buffers submitted, the FEC started), mpc52xx_fec_rx_interrupt (each
// done descriptor's skb to netif_rx, a fresh buffer submitted in its place),
// mpc52xx_fec_hard_start_xmit and mpc52xx_fec_tx_interrupt. No NAPI: received frames go
// through the backlog (process_backlog) in NET_RX_SOFTIRQ.
#include <cstdint>
#include <optional>
#include "kernel_sim/arch/powerpc/sysdev/bestcomm.h"
#include "kernel_sim/arch/powerpc/sysdev/mpc52xx_pic.h"
#include "kernel_sim/locks/spinlock.h"
#include "kernel_sim/net/dev.h"

namespace latsim::kernel {

class Kernel;

class Mpc52xxFecDriver : public NetDriver {
 public:
  // The board's address map (the device tree's): MBAR and the blocks under it.
  static constexpr uint64_t kMbar = Mpc52xxPic::kMbar;
  static constexpr uint64_t kFec = kMbar + 0x3000;
  static constexpr uint64_t kSdma = Mpc52xxPic::kSdma;
  static constexpr uint64_t kSram = kMbar + 0x8000;
  static constexpr unsigned kRxTask = 0, kTxTask = 1;          // bcom_fec_rx_init, bcom_fec_tx_init
  static constexpr uint32_t kRxRing = 0x100, kTxRing = 0x900;  // bcom_sram_alloc'd rings
  static constexpr uint32_t FEC_RX_NUM_BD = 256, FEC_TX_NUM_BD = 64;
  static constexpr uint32_t FEC_RX_BUFFER_SIZE = 1522;
  static constexpr uint64_t kRxBufs = 0x00200000;  // skb data buffers, 2 KiB apart

  Mpc52xxFecDriver(Kernel& k, NetStack& net);
  void open() override;
  const NetDriverStats& stats() const override { return s_; }

 private:
  void rx_interrupt();
  void tx_interrupt();
  bool hard_start_xmit(uint32_t bytes);
  void submit_rx_buffer();
  uint32_t dma_map_lines(uint32_t bytes) const { return (bytes + 31) / 32; }

  Kernel& k_;
  NetStack& net_;
  NetDevice dev_;
  std::optional<BcomTask> rx_, tx_;
  Spinlock lock_{"priv->lock"};
  unsigned r_irq_ = 0, t_irq_ = 0;  // the tasks' virqs (bcom_get_task_irq)
  uint32_t rx_slot_ = 0;  // the data buffer submitted next (FEC_RX_NUM_BD of them in turn)
  bool queue_stopped_ = false;
  NetDriverStats s_;
};

}  // namespace latsim::kernel
