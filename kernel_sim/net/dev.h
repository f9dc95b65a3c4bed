#pragma once
// net/core/dev.c (2.6.9): the NAPI poll list and net_rx_action in NET_RX_SOFTIRQ,
// bounded by netdev_max_backlog packets per run; dev_queue_xmit; and one UDP-like
// socket receive queue that a reader task sleeps on (net/core/sock.c).
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <systemc>
#include <vector>
#include "kernel_sim/locks/spinlock.h"

namespace latsim::kernel {

class Kernel;
struct Task;

// struct net_device as far as NAPI needs it.
struct NetDevice {
  const char* name = "eth0";
  int weight = 64;  // dev->weight (8139too: 64)
  int quota = 0;    // dev->quota
  bool on_poll_list = false;
  sc_core::sc_time scheduled_at;  // __netif_rx_schedule put it on the list (until polled)
  bool poll_due = false;
  // dev->poll(dev, &budget): true when it has more work (stays on the list).
  std::function<bool(int* budget)> poll;
  // dev->hard_start_xmit: false when no descriptor is free (queue stopped).
  std::function<bool(uint32_t bytes)> hard_start_xmit;
  Spinlock queue_lock{"dev->queue_lock"};
};

// The driver behind eth0 (8139too or fec_mpc52xx), as the stack and the metrics see it.
struct NetDriverStats {
  uint64_t irqs = 0, rx_packets = 0, rx_bytes = 0, tx_packets = 0, polls = 0;
};
class NetDriver {
 public:
  virtual ~NetDriver() = default;
  virtual void open() = 0;  // dev_open: the driver's open, its IRQ requested
  virtual const NetDriverStats& stats() const = 0;
};

struct NetStats {
  uint64_t rx_action_runs = 0;        // net_rx_action invocations
  uint64_t time_squeeze = 0;          // budget or jiffy exhausted: softirq raised again
  uint64_t max_packets_per_poll = 0;  // most packets one dev->poll call handled
  uint64_t max_packets_per_action = 0;
  // __netif_rx_schedule to the device's first dev->poll in net_rx_action: the longest.
  sc_core::sc_time max_schedule_to_poll;
  uint64_t packets_received = 0, packets_sent = 0, socket_drops = 0, delivered = 0;
  uint64_t backlog_drops = 0;  // netif_rx: input_pkt_queue over netdev_max_backlog
};

class NetStack {
 public:
  explicit NetStack(Kernel& k);
  void register_netdev(NetDevice* dev) { dev_ = dev; }
  // __netif_rx_schedule: put dev on this CPU's poll list, raise NET_RX_SOFTIRQ.
  void netif_rx_schedule(NetDevice* dev, const char* parent);
  // __netif_rx_complete: off this CPU's poll list; the driver calls it with interrupts
  // off, together with unmasking its Rx interrupt (8139too's rtl8139_poll).
  void netif_rx_complete(NetDevice* dev);
  // netif_rx (2.6.24 net/core/dev.c): a non-NAPI driver's skb onto this CPU's
  // input_pkt_queue, the backlog device scheduled; process_backlog runs it in NET_RX_SOFTIRQ.
  void netif_rx(uint32_t bytes, const char* parent);
  // netif_receive_skb -> ip_rcv -> udp_rcv -> sock_queue_rcv_skb.
  void netif_receive_skb(uint32_t bytes, const char* parent);
  void note_poll(int packets);
  // sys_sendto of one datagram: udp_sendmsg -> dev_queue_xmit; sleeps while the
  // device queue is stopped (netif_stop_queue) until netif_wake_queue.
  void send(uint32_t bytes);
  void netif_wake_queue(const char* parent);
  // sys_recvfrom: sleep until a datagram is queued, copy it to user.
  uint32_t recv();
  const NetStats& stats() const { return s_; }
  int rcvbuf_packets = 64;  // assumption: sk_rcvbuf 64 KiB of MTU-sized skbs

 private:
  void net_rx_action();
  void deliver(uint32_t bytes);  // sock_queue_rcv_skb and the reader's wake-up
  bool process_backlog(int cpu, int* budget);
  Kernel& k_;
  // softnet_data's input_pkt_queue and backlog device, per CPU (made by the first netif_rx).
  std::vector<std::deque<uint32_t>> input_pkt_queue_;
  std::vector<std::unique_ptr<NetDevice>> backlog_;
  NetDevice* dev_ = nullptr;
  std::vector<std::deque<NetDevice*>> poll_list_;  // per CPU (softnet_data)
  std::deque<uint32_t> rcv_queue_;
  Task* reader_ = nullptr;         // sleeping in recvfrom
  std::vector<Task*> tx_waiters_;  // sleeping on a stopped queue
  uint64_t action_packets_ = 0;
  NetStats s_;
};

}  // namespace latsim::kernel
