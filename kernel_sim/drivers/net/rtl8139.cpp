#include "kernel_sim/drivers/net/rtl8139.h"
#include <algorithm>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
// RTL8139C register offsets and bits (8139too.c names).
constexpr uint16_t TxStatus0 = 0x10, TxAddr0 = 0x20, RxBuf = 0x30, ChipCmd = 0x37, RxBufPtr = 0x38,
                   IntrMask = 0x3c, IntrStatus = 0x3e, TxConfig = 0x40, RxConfig = 0x44,
                   RxMissed = 0x4c;
constexpr uint8_t CmdReset = 0x10, CmdRxEnb = 0x08, CmdTxEnb = 0x04, RxBufEmpty = 0x01;
constexpr uint16_t RxOK = 0x01, RxErr = 0x02, TxOK = 0x04, TxErr = 0x08, RxOverflow = 0x10,
                   RxUnderrun = 0x20, RxFIFOOver = 0x40, PCSTimeout = 0x4000, PCIErr = 0x8000;
constexpr uint16_t RxAckBits = RxFIFOOver | RxOverflow | RxOK;
constexpr uint16_t rtl8139_intr_mask =
    PCIErr | PCSTimeout | RxUnderrun | RxOverflow | RxFIFOOver | TxErr | TxOK | RxErr | RxOK;
constexpr uint16_t rtl8139_norx_intr_mask = rtl8139_intr_mask & ~RxAckBits;
constexpr uint32_t TxStatOK = 1u << 15, TxUnderrun = 1u << 14, TxAborted = 1u << 30;
// RX_FIFO_THRESH 7 (whole frame), RX_BUF_LEN_IDX 2 (32K), RX_DMA_BURST 7 (unlimited),
// RxNoWrap, AcceptBroadcast | AcceptMyPhys.
constexpr uint32_t kRxConfig = (7u << 13) | (2u << 11) | (7u << 8) | (1u << 7) | 0x08 | 0x02;
constexpr uint32_t kTxConfig = (6u << 8) | (3u << 24);  // TX_DMA_BURST 1024, IFG normal
constexpr uint32_t kTxFlag = 0;                         // early Tx threshold 8 bytes
constexpr uint32_t ETH_ZLEN = 60;
}  // namespace

Rtl8139Driver::Rtl8139Driver(Kernel& k, NetStack& net) : k_(k), net_(net) {
  dev_.weight = k.params().nic_weight;
  dev_.poll = [this](int* budget) { return poll(budget); };
  dev_.hard_start_xmit = [this](uint32_t bytes) { return start_xmit(bytes); };
  net_.register_netdev(&dev_);
}

void Rtl8139Driver::open() {
  const uint16_t io = kIoBase;
  k_.request_irq(kIrq, "eth0", IRQF_SHARED, [this] { interrupt(); });  // rtl8139_open
  // rtl8139_hw_start: reset, enable Rx/Tx, ring and Tx buffer addresses, configs, mask.
  k_.outb(CmdReset, io + ChipCmd);
  while (k_.inb(io + ChipCmd) & CmdReset) k_.exec(100);  // udelay(10) polls
  k_.outb(CmdRxEnb | CmdTxEnb, io + ChipCmd);
  k_.outl(kRxConfig, io + RxConfig);
  k_.outl(kTxConfig, io + TxConfig);
  k_.outl(uint32_t(kRxRing), io + RxBuf);
  for (int i = 0; i < kNumTxDesc; ++i)
    k_.outl(uint32_t(kTxBufs + 1536u * unsigned(i)), uint16_t(io + TxAddr0 + 4 * i));
  k_.outl(0, io + RxMissed);
  cur_rx_ = 0;
  k_.this_cpu().outw(rtl8139_intr_mask, io + IntrMask);
}

// rtl8139_interrupt: ack what is not Rx, hand Rx to NAPI with Rx interrupts masked.
void Rtl8139Driver::interrupt() {
  const uint16_t io = kIoBase;
  CpuOps& cpu = k_.this_cpu();
  s_.irqs++;
  k_.fn("rtl8139_interrupt", "generic_handle_IRQ_event", 80, 2);
  k_.spin_lock(lock_, "rtl8139_interrupt");
  const uint16_t status = cpu.inw(io + IntrStatus);
  if (status & rtl8139_intr_mask) {
    const uint16_t ackstat = status & uint16_t(~(RxAckBits | TxErr));
    if (ackstat) cpu.outw(ackstat, io + IntrStatus);
    if (status & RxAckBits) {
      cpu.outw(rtl8139_norx_intr_mask, io + IntrMask);
      (void)cpu.inw(io + IntrMask);  // RTL_W16_F: flush the posted write
      net_.netif_rx_schedule(&dev_, "rtl8139_interrupt");
    }
    if (status & (TxOK | TxErr)) {
      tx_interrupt();
      if (status & TxErr) cpu.outw(TxErr, io + IntrStatus);
    }
  }
  k_.spin_unlock(lock_, {"rtl8139_interrupt", "unlock"});
}

void Rtl8139Driver::isr_ack() {
  const uint16_t io = kIoBase;
  CpuOps& cpu = k_.this_cpu();
  const uint16_t status = cpu.inw(io + IntrStatus) & RxAckBits;
  if (status) cpu.outw(status, io + IntrStatus);  // only ack what we saw
}

// rtl8139_poll: the whole Rx loop runs under tp->rx_lock (the non-preemptible
// section of seed 000's traces, rtl8139_poll+0x3c .. +0x100).
bool Rtl8139Driver::poll(int* budget) {
  const uint16_t io = kIoBase;
  CpuOps& cpu = k_.this_cpu();
  s_.polls++;
  k_.fn("rtl8139_poll", "net_rx_action", 60, 1);
  const int orig_budget = std::min(*budget, dev_.quota);
  bool done = true;
  k_.spin_lock(rx_lock_, "rtl8139_poll");
  if (cpu.inw(io + IntrStatus) & RxAckBits) {
    const int work = rx(orig_budget);
    net_.note_poll(work);
    if (work > 0) {
      *budget -= work;
      dev_.quota -= work;
      done = work < orig_budget;
    }
  }
  if (done) {  // __netif_rx_complete, Rx interrupts back on
    k_.local_irq_disable({"rtl8139_poll", "lock"});
    cpu.outw(rtl8139_intr_mask, io + IntrMask);
    (void)cpu.inw(io + IntrMask);
    net_.netif_rx_complete(&dev_);  // before interrupts are back: no Rx IRQ in between
    k_.local_irq_enable({"rtl8139_poll", "unlock"});
  }
  k_.spin_unlock(rx_lock_, {"rtl8139_poll", "unlock"});
  return !done;
}

int Rtl8139Driver::rx(int budget) {
  const uint16_t io = kIoBase;
  CpuOps& cpu = k_.this_cpu();
  k_.fn("rtl8139_rx", "rtl8139_poll", 60, 1);
  int received = 0;
  while (received < budget && !(k_.inb(io + ChipCmd) & RxBufEmpty)) {
    const uint32_t off = cur_rx_ % kRxBufLen;
    uint32_t rx_status = 0;
    cpu.mem_read(kRxRing + off, &rx_status, 4);
    const uint32_t rx_size = rx_status >> 16;  // frame length with FCS
    const uint32_t pkt_size = rx_size > 4 ? rx_size - 4 : 0;
    // The header line was just written by DMA: it misses.
    k_.exec(40, 1);
    // dev_alloc_skb -> alloc_skb: slab object for the sk_buff plus a kmalloc'd data buffer.
    k_.fn("alloc_skb", "rtl8139_rx", 80, 2);
    k_.fn("kmem_cache_alloc", "alloc_skb", 120, 2);
    k_.fn("__kmalloc", "alloc_skb", 150, 2);
    // eth_copy_and_sum: the frame was written by DMA (every source line misses), the
    // fresh skb data lines are write-allocated.
    k_.fn("eth_copy_and_sum", "rtl8139_rx", 40 + pkt_size / 4, 1, 2 * ((pkt_size + 31) / 32));
    k_.fn("eth_type_trans", "rtl8139_rx", 60, 1);
    s_.rx_packets++;
    s_.rx_bytes += pkt_size;
    net_.netif_receive_skb(pkt_size, "rtl8139_rx");
    received++;
    cur_rx_ = (cur_rx_ + rx_size + 4 + 3) & ~3u;
    cpu.outw(uint16_t(cur_rx_ - 16), io + RxBufPtr);
    isr_ack();
  }
  return received;
}

// rtl8139_start_xmit: copy the frame into the descriptor's bounce buffer, hand
// it to the chip by writing its size into TxStatus.
bool Rtl8139Driver::start_xmit(uint32_t bytes) {
  const uint16_t io = kIoBase;
  if (queue_stopped_) return false;
  k_.fn("rtl8139_start_xmit", "qdisc_restart", 80, 2);
  const unsigned entry = cur_tx_ % kNumTxDesc;
  const uint32_t len = std::min<uint32_t>(bytes, 1514);
  k_.fn("skb_copy_and_csum_dev", "rtl8139_start_xmit", 40 + len / 4, 1, (len + 31) / 32);
  k_.fn("dev_kfree_skb", "rtl8139_start_xmit", 100, 2);
  k_.spin_lock_irq(lock_, "rtl8139_start_xmit");
  k_.outl(kTxFlag | std::max(len, ETH_ZLEN), uint16_t(io + TxStatus0 + 4 * entry));
  cur_tx_++;
  if (cur_tx_ - dirty_tx_ == kNumTxDesc) queue_stopped_ = true;  // netif_stop_queue
  k_.spin_unlock_irq(lock_, {"rtl8139_start_xmit", "unlock"});
  s_.tx_packets++;
  return true;
}

// rtl8139_tx_interrupt: reclaim descriptors the chip has sent, wake the queue.
void Rtl8139Driver::tx_interrupt() {
  const uint16_t io = kIoBase;
  k_.fn("rtl8139_tx_interrupt", "rtl8139_interrupt", 60, 1);
  while (cur_tx_ != dirty_tx_) {
    const unsigned entry = dirty_tx_ % kNumTxDesc;
    const uint32_t txstatus = k_.this_cpu().inl(uint16_t(io + TxStatus0 + 4 * entry));
    if (!(txstatus & (TxStatOK | TxUnderrun | TxAborted))) break;
    dirty_tx_++;
  }
  if (queue_stopped_ && cur_tx_ - dirty_tx_ < kNumTxDesc) {
    queue_stopped_ = false;
    net_.netif_wake_queue("rtl8139_tx_interrupt");
  }
}

}  // namespace latsim::kernel
