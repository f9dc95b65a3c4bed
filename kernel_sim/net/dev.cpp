#include "kernel_sim/net/dev.h"
#include <algorithm>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

NetStack::NetStack(Kernel& k) : k_(k), poll_list_(size_t(k.ncpus())) {
  k_.open_softirq(NET_RX_SOFTIRQ, [this] { net_rx_action(); });
}

void NetStack::netif_rx_schedule(NetDevice* dev, const char* parent) {
  k_.fn("__netif_rx_schedule", parent, 30, 1);
  if (dev->on_poll_list) return;  // netif_rx_schedule_prep: __LINK_STATE_RX_SCHED
  dev->on_poll_list = true;
  dev->scheduled_at = k_.now();
  dev->poll_due = true;
  dev->quota += dev->weight;
  poll_list_[size_t(k_.smp_processor_id())].push_back(dev);
  k_.__raise_softirq_irqoff(NET_RX_SOFTIRQ);  // 2.6.9 include/linux/netdevice.h
}

void NetStack::netif_rx(uint32_t bytes, const char* parent) {
  k_.fn("netif_rx", parent, 120, 2);
  if (backlog_.empty()) {
    input_pkt_queue_.resize(size_t(k_.ncpus()));
    for (int c = 0; c < k_.ncpus(); ++c) {
      backlog_.push_back(std::make_unique<NetDevice>());
      backlog_.back()->name = "backlog";
      backlog_.back()->poll = [this, c](int* budget) { return process_backlog(c, budget); };
    }
  }
  const bool flags = !k_.irqs_disabled();  // local_irq_save
  k_.local_irq_disable({"netif_rx", "lock"});
  const size_t cpu = size_t(k_.smp_processor_id());
  auto& q = input_pkt_queue_[cpu];
  if (int(q.size()) <= k_.params().netdev_max_backlog) {
    q.push_back(bytes);
    netif_rx_schedule(backlog_[cpu].get(), "netif_rx");  // napi_schedule(&queue->backlog)
  } else {
    s_.backlog_drops++;
    k_.fn("kfree_skb", "netif_rx", 120, 2);
  }
  if (flags) k_.local_irq_enable({"netif_rx", "unlock"});
}

// process_backlog: dequeue with interrupts off, netif_receive_skb each, until the queue is
// empty (napi_complete) or the quota or budget is used.
bool NetStack::process_backlog(int cpu, int* budget) {
  NetDevice& dev = *backlog_[size_t(cpu)];
  auto& q = input_pkt_queue_[size_t(cpu)];
  k_.fn("process_backlog", "net_rx_action", 40, 1);
  const int quota = std::min(*budget, dev.quota);
  int work = 0;
  for (;;) {
    k_.local_irq_disable({"process_backlog", "lock"});
    if (q.empty()) {
      netif_rx_complete(&dev);
      k_.local_irq_enable({"process_backlog", "unlock"});
      break;
    }
    const uint32_t bytes = q.front();
    q.pop_front();
    k_.local_irq_enable({"process_backlog", "unlock"});
    netif_receive_skb(bytes, "process_backlog");
    if (++work >= quota) break;
  }
  note_poll(work);
  *budget -= work;
  dev.quota -= work;
  return dev.on_poll_list;
}

void NetStack::netif_rx_complete(NetDevice* dev) {
  auto& list = poll_list_[size_t(k_.smp_processor_id())];
  const auto it = std::find(list.begin(), list.end(), dev);
  if (it != list.end()) list.erase(it);
  dev->on_poll_list = false;
}

void NetStack::note_poll(int packets) {
  s_.max_packets_per_poll = std::max<uint64_t>(s_.max_packets_per_poll, uint64_t(packets));
  action_packets_ += uint64_t(packets);
  s_.packets_received += uint64_t(packets);
}

// net_rx_action: budget = netdev_max_backlog per run, at most one jiffy; a device
// that used its quota goes to the tail of the list; leftovers re-raise the softirq.
void NetStack::net_rx_action() {
  k_.fn("net_rx_action", "__do_softirq", 60, 1);
  s_.rx_action_runs++;
  action_packets_ = 0;
  auto& list = poll_list_[size_t(k_.smp_processor_id())];
  const uint64_t start = k_.jiffies();
  int budget = k_.params().netdev_max_backlog;
  const bool flags = !k_.irqs_disabled();
  k_.local_irq_disable({"net_rx_action", "lock"});
  while (!list.empty()) {
    if (budget <= 0 || k_.jiffies() - start > 1) {  // softnet_break
      s_.time_squeeze++;
      k_.__raise_softirq_irqoff(NET_RX_SOFTIRQ);  // softnet_break, net/core/dev.c
      break;
    }
    k_.local_irq_enable({"net_rx_action", "unlock"});
    NetDevice* dev = list.front();
    if (dev->poll_due) {
      dev->poll_due = false;
      s_.max_schedule_to_poll = std::max(s_.max_schedule_to_poll, k_.now() - dev->scheduled_at);
    }
    const bool more = dev->quota <= 0 || dev->poll(&budget);
    k_.local_irq_disable({"net_rx_action", "lock"});
    if (more) {
      list.pop_front();
      list.push_back(dev);
      dev->quota = dev->quota < 0 ? dev->quota + dev->weight : dev->weight;
    }  // else dev->poll took it off the list itself (netif_rx_complete), interrupts off
  }
  if (flags) k_.local_irq_enable({"net_rx_action", "unlock"});
  LATSIM_DEBUG(net, k_.log_who(), "net_rx_action: {} packets", action_packets_);
  s_.max_packets_per_action = std::max(s_.max_packets_per_action, action_packets_);
}

// The ptype walk and delivery run under rcu_read_lock (2.6.24 net/core/dev.c), the
// protocol handler under another (net/ipv4/ip_input.c ip_local_deliver_finish); on the
// flavours without preemptible RCU these cost nothing here.
void NetStack::netif_receive_skb(uint32_t bytes, const char* parent) {
  k_.fn("netif_receive_skb", parent, 200, 3);
  k_.rcu_read_lock("netif_receive_skb");
  k_.fn("ip_rcv", "netif_receive_skb", 400, 4);
  k_.rcu_read_lock("ip_local_deliver_finish");
  k_.fn("udp_rcv", "ip_local_deliver", 300, 3);
  deliver(bytes);
  k_.rcu_read_unlock("ip_local_deliver_finish");
  k_.rcu_read_unlock("netif_receive_skb");
}

void NetStack::deliver(uint32_t bytes) {
  if (int(rcv_queue_.size()) >= rcvbuf_packets) {  // sock_queue_rcv_skb: over sk_rcvbuf
    s_.socket_drops++;
    k_.fn("kfree_skb", "udp_queue_rcv_skb", 120, 2);
    return;
  }
  k_.fn("sock_queue_rcv_skb", "udp_queue_rcv_skb", 150, 2);
  rcv_queue_.push_back(bytes);
  s_.delivered++;
  if (reader_) {
    k_.fn("sock_def_readable", "sock_queue_rcv_skb", 40, 1);
    Task* t = reader_;
    reader_ = nullptr;
    k_.try_to_wake_up(t, "__wake_up_common");
  }
}

uint32_t NetStack::recv() {
  k_.fn("sys_recvfrom", "syscall_call", 200, 2);
  k_.fn("udp_recvmsg", "sock_common_recvmsg", 150, 2);
  while (rcv_queue_.empty()) {  // skb_recv_datagram -> wait_for_packet
    reader_ = &k_.current();
    k_.set_current_state(TASK_INTERRUPTIBLE);
    k_.schedule("schedule_timeout");
  }
  const uint32_t bytes = rcv_queue_.front();
  rcv_queue_.pop_front();
  // skb_copy_datagram_iovec: the payload was copied out of the ring by the softirq,
  // possibly on the other CPU: each line misses here.
  k_.might_sleep("skb_copy_datagram_iovec");
  k_.fn("__copy_to_user_ll", "skb_copy_datagram_iovec", 40 + bytes / 4, 2, bytes / 32);
  k_.fn("kfree_skb", "skb_free_datagram", 120, 2);
  return bytes;
}

void NetStack::send(uint32_t bytes) {
  k_.fn("sys_sendto", "syscall_call", 200, 2);
  k_.fn("udp_sendmsg", "inet_sendmsg", 500, 4);
  k_.fn("alloc_skb", "sock_alloc_send_skb", 300, 3);
  k_.might_sleep("__copy_from_user_ll");
  // ip_append_data: the payload is copied into a fresh skb (write-allocate misses).
  k_.fn("__copy_from_user_ll", "ip_append_data", 40 + bytes / 4, 2, bytes / 32);
  k_.fn("ip_push_pending_frames", "udp_push_pending_frames", 300, 3);
  k_.fn("dev_queue_xmit", "ip_finish_output", 100, 2);
  for (;;) {
    k_.spin_lock_irq(dev_->queue_lock, "dev_queue_xmit");
    k_.fn("qdisc_restart", "dev_queue_xmit", 80, 1);
    const bool sent = dev_->hard_start_xmit(bytes);
    k_.spin_unlock_irq(dev_->queue_lock, {"dev_queue_xmit", "unlock"});
    if (sent) break;
    // Queue stopped: sleep in sock_wait_for_wmem until the Tx interrupt frees a slot.
    tx_waiters_.push_back(&k_.current());
    k_.set_current_state(TASK_INTERRUPTIBLE);
    k_.schedule("sock_wait_for_wmem");
  }
  s_.packets_sent++;
}

void NetStack::netif_wake_queue(const char* parent) {
  if (tx_waiters_.empty()) return;
  k_.fn("netif_wake_queue", parent, 30);
  auto waiters = std::move(tx_waiters_);
  tx_waiters_.clear();
  for (Task* t : waiters) k_.try_to_wake_up(t, "__wake_up_common");
}

}  // namespace latsim::kernel
