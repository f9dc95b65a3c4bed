#pragma once
// drivers/net/8139too.c (2.6.9) CPU side: rtl8139_open, rtl8139_interrupt, the
// NAPI rtl8139_poll / rtl8139_rx loop over the Rx ring, rtl8139_start_xmit and
// rtl8139_tx_interrupt. Registers through port I/O at the BAR the BIOS assigned.
#include <cstdint>
#include "kernel_sim/locks/spinlock.h"
#include "kernel_sim/net/dev.h"

namespace latsim::kernel {

class Kernel;

class Rtl8139Driver : public NetDriver {
 public:
  static constexpr uint16_t kIoBase = 0xe000;  // I/O BAR as the BIOS assigned it (board map)
  static constexpr unsigned kIrq = 11;
  static constexpr uint64_t kRxRing = 0x00200000;  // pci_alloc_consistent, 32 KiB + 16 + 1536
  static constexpr uint64_t kTxBufs = 0x00210000;  // 4 x 1536-byte bounce buffers
  static constexpr uint32_t kRxBufLen = 32768;     // RX_BUF_LEN_IDX 2
  static constexpr int kNumTxDesc = 4;

  Rtl8139Driver(Kernel& k, NetStack& net);
  void open() override;  // rtl8139_open + rtl8139_hw_start; request_irq(11, "eth0")
  NetDevice& dev() { return dev_; }
  const NetDriverStats& stats() const override { return s_; }

 private:
  void interrupt();
  bool poll(int* budget);
  int rx(int budget);
  bool start_xmit(uint32_t bytes);
  void tx_interrupt();
  void isr_ack();

  Kernel& k_;
  NetStack& net_;
  NetDevice dev_;
  Spinlock lock_{"tp->lock"}, rx_lock_{"tp->rx_lock"};
  uint32_t cur_rx_ = 0;
  uint32_t cur_tx_ = 0, dirty_tx_ = 0;
  bool queue_stopped_ = false;
  NetDriverStats s_;
};

}  // namespace latsim::kernel
