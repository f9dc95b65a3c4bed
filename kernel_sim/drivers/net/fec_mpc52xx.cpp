#include "kernel_sim/drivers/net/fec_mpc52xx.h"
#include <algorithm>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
// fec_mpc52xx.h register offsets and bits.
constexpr uint32_t FEC_IMASK = 0x008, FEC_ECNTRL = 0x024, FEC_R_CNTRL = 0x084, FEC_X_CNTRL = 0x0c4,
                   FEC_PADDR1 = 0x0e4, FEC_PADDR2 = 0x0e8;
constexpr uint32_t FEC_ECNTRL_ETHER_EN = 0x2, FEC_ECNTRL_RESET = 0x1;
constexpr uint32_t FEC_RCNTRL_MAX_FL_SHIFT = 16, FEC_RCNTRL_MII_MODE = 0x4, FEC_TCNTRL_FDEN = 0x4;
constexpr uint32_t FEC_IMASK_ENABLE = 0xf0fe0000;  // errors only: frames come via BestComm
constexpr uint32_t BCOM_FEC_RX_BD_ERRORS = 0x00370000, BCOM_FEC_RX_BD_LEN_MASK = 0x7ff;
constexpr uint32_t BCOM_FEC_TX_BD_TFD = 0x08000000, BCOM_FEC_TX_BD_TC = 0x04000000;
constexpr uint32_t ETH_ZLEN = 60;
}  // namespace

Mpc52xxFecDriver::Mpc52xxFecDriver(Kernel& k, NetStack& net) : k_(k), net_(net) {
  dev_.hard_start_xmit = [this](uint32_t bytes) { return hard_start_xmit(bytes); };
  net_.register_netdev(&dev_);
}

// mpc52xx_fec_open: request the tasks' IRQs (each task's SDMA source mapped to a virq by
// bcom_task_alloc; the SDMA chip unmasks it), reset the tasks, fill the receive ring,
// mpc52xx_fec_start (FEC registers, ETHER_EN), bcom_enable both tasks.
void Mpc52xxFecDriver::open() {
  rx_.emplace(k_, kSdma, kSram, kRxTask, kRxRing, FEC_RX_NUM_BD, false);
  tx_.emplace(k_, kSdma, kSram, kTxTask, kTxRing, FEC_TX_NUM_BD, true);
  Mpc52xxPic& pic = k_.mpc52xx_pic();
  r_irq_ = pic.irq_create_mapping(Mpc52xxPic::hwirq(Mpc52xxPic::L1_SDMA, kRxTask));
  t_irq_ = pic.irq_create_mapping(Mpc52xxPic::hwirq(Mpc52xxPic::L1_SDMA, kTxTask));
  k_.request_irq(r_irq_, "mpc52xx-fec_rx", 0, [this] { rx_interrupt(); });
  k_.request_irq(t_irq_, "mpc52xx-fec_tx", 0, [this] { tx_interrupt(); });
  k_.writel(FEC_ECNTRL_RESET, kFec + FEC_ECNTRL);  // mpc52xx_fec_hw_init
  rx_->reset();
  tx_->reset();
  while (!rx_->queue_full()) submit_rx_buffer();  // mpc52xx_fec_alloc_rx_buffers
  k_.writel(0x02000000, kFec + FEC_PADDR1);       // the station address
  k_.writel(0x00018808, kFec + FEC_PADDR2);
  k_.writel(uint32_t(FEC_RX_BUFFER_SIZE) << FEC_RCNTRL_MAX_FL_SHIFT | FEC_RCNTRL_MII_MODE,
            kFec + FEC_R_CNTRL);
  k_.writel(FEC_TCNTRL_FDEN, kFec + FEC_X_CNTRL);
  k_.writel(FEC_IMASK_ENABLE, kFec + FEC_IMASK);
  k_.writel(FEC_ECNTRL_ETHER_EN, kFec + FEC_ECNTRL);
  rx_->enable();
  tx_->enable();
}

// dev_alloc_skb, dma_map_single (a non-coherent e300: invalidate_dcache_range over the
// buffer, a dcbi per line), the descriptor's status and address, bcom_submit_next_buffer.
void Mpc52xxFecDriver::submit_rx_buffer() {
  k_.fn("alloc_skb", "dev_alloc_skb", 80, 2);
  k_.fn("kmem_cache_alloc", "alloc_skb", 120, 2);
  k_.fn("__kmalloc", "alloc_skb", 150, 2);
  k_.fn("invalidate_dcache_range", "dma_map_single", 20 + 4 * dma_map_lines(FEC_RX_BUFFER_SIZE), 1);
  const uint64_t bd = rx_->prepare_next_buffer();
  k_.writel(FEC_RX_BUFFER_SIZE, bd);
  k_.writel(uint32_t(kRxBufs + 2048u * rx_slot_), bd + 4);
  rx_slot_ = (rx_slot_ + 1) % FEC_RX_NUM_BD;
  rx_->submit_next_buffer();
}

// mpc52xx_fec_rx_interrupt: each done descriptor's skb goes up with netif_rx (no copy: the
// frame stays in the buffer BestComm wrote), a fresh buffer takes its place in the ring.
void Mpc52xxFecDriver::rx_interrupt() {
  s_.irqs++;
  k_.fn("mpc52xx_fec_rx_interrupt", "handle_IRQ_event", 60, 1);
  while (rx_->buffer_done()) {
    const uint32_t status = rx_->retrieve_buffer();
    submit_rx_buffer();  // a fresh skb, or on an error the old one again
    if (status & BCOM_FEC_RX_BD_ERRORS) continue;
    const uint32_t length = status & BCOM_FEC_RX_BD_LEN_MASK;
    // skb_put and eth_type_trans: the header line was written by BestComm, it misses.
    k_.fn("eth_type_trans", "mpc52xx_fec_rx_interrupt", 60, 1, 1);
    const uint32_t bytes = length > 4 ? length - 4 : 0;  // without CRC32
    s_.rx_packets++;
    s_.rx_bytes += bytes;
    net_.netif_rx(bytes, "mpc52xx_fec_rx_interrupt");
  }
}

// mpc52xx_fec_tx_interrupt: free what BestComm has moved, wake the queue.
void Mpc52xxFecDriver::tx_interrupt() {
  s_.irqs++;
  k_.fn("mpc52xx_fec_tx_interrupt", "handle_IRQ_event", 60, 1);
  k_.spin_lock(lock_, "mpc52xx_fec_tx_interrupt");
  while (tx_->buffer_done()) {
    (void)tx_->retrieve_buffer();
    k_.fn("dev_kfree_skb_irq", "mpc52xx_fec_tx_interrupt", 100, 2);
  }
  if (queue_stopped_) {
    queue_stopped_ = false;
    net_.netif_wake_queue("mpc52xx_fec_tx_interrupt");
  }
  k_.spin_unlock(lock_, {"mpc52xx_fec_tx_interrupt", "unlock"});
}

// mpc52xx_fec_hard_start_xmit: the skb's data flushed (dma_map_single, a dcbst per line)
// and handed to the transmit task through its next descriptor.
bool Mpc52xxFecDriver::hard_start_xmit(uint32_t bytes) {
  if (queue_stopped_) return false;
  k_.fn("mpc52xx_fec_hard_start_xmit", "qdisc_restart", 80, 2);
  const uint32_t len = std::max(std::min<uint32_t>(bytes, 1514), ETH_ZLEN);
  const bool flags = k_.spin_lock_irqsave(lock_, "mpc52xx_fec_hard_start_xmit");
  if (tx_->queue_full()) {
    queue_stopped_ = true;
    k_.spin_unlock_irqrestore(lock_, flags, {"mpc52xx_fec_hard_start_xmit", "unlock"});
    return false;
  }
  const uint64_t bd = tx_->prepare_next_buffer();
  k_.writel(len | BCOM_FEC_TX_BD_TFD | BCOM_FEC_TX_BD_TC, bd);
  k_.fn("flush_dcache_range", "dma_map_single", 20 + 4 * dma_map_lines(len), 1);
  k_.writel(uint32_t(kRxBufs + 2048u * FEC_RX_NUM_BD), bd + 4);  // the skb's data
  tx_->submit_next_buffer();
  if (tx_->queue_full()) queue_stopped_ = true;  // netif_stop_queue
  k_.spin_unlock_irqrestore(lock_, flags, {"mpc52xx_fec_hard_start_xmit", "unlock"});
  s_.tx_packets++;
  return true;
}

}  // namespace latsim::kernel
