// drivers/block/ll_rw_blk.c (2.6.9) plugging, kernel.plugging timer: a request put on
// an empty queue plugs it (blk_plug_device arms q->unplug_timer unplug_delay ticks out).
// The queue then runs when the elevator holds unplug_thresh requests (__elv_add_request,
// in the submitter), when a task waits on a page or buffer under I/O (sync_page /
// sync_buffer -> blk_backing_dev_unplug -> generic_unplug_device), or when the timer
// fires: blk_unplug_timeout queues q->unplug_work on kblockd/N, whose blk_unplug_work
// calls generic_unplug_device. With inline plugging the submitter runs the queue at once.
#include <algorithm>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

bool BlockLayer::plugging_timer() const { return k_.params().block.plugging == "timer"; }

// __make_request: elv_queue_empty (nothing queued, nothing on the dispatch list, where
// IDE keeps its active request until it ends) -> blk_plug_device, and no merge to try.
bool BlockLayer::plug_if_empty() {
  if (!plugging_timer() || !queue_.empty() || busy_) return false;
  blk_plug_device();
  return true;
}

void BlockLayer::blk_plug_device() {
  k_.fn("blk_plug_device", "__make_request", 30, 1);  // test_and_set_bit(QUEUE_FLAG_PLUGGED)
  if (plugged_) return;
  plugged_ = true;
  stats_.plugs++;
  // mod_timer(&q->unplug_timer, jiffies + q->unplug_delay) on this CPU's timer base;
  // unplug_delay = (3 * HZ) / 1000, at least one tick.
  const int c = k_.smp_processor_id();
  const uint64_t delay = std::max<uint64_t>(
      1, uint64_t(k_.params().block.unplug_delay_ms) * uint64_t(k_.params().hz) / 1000);
  k_.fn("mod_timer", "blk_plug_device", 60, 1);
  unplug_timer_cpu_ = c;
  unplug_timer_ = k_.timers(c).add(k_.local_ticks(c) + delay, [this] { blk_unplug_timeout(); });
}

bool BlockLayer::blk_remove_plug() {
  k_.fn("blk_remove_plug", "__generic_unplug_device", 20, 1);  // test_and_clear_bit
  if (!plugged_) return false;
  plugged_ = false;
  k_.fn("del_timer", "blk_remove_plug", 40, 1);
  k_.timers(unplug_timer_cpu_).del(unplug_timer_);
  return true;
}

// __generic_unplug_device, with ide_lock held: only a plugged queue is run here
// (an unplugged one is run by its completions or by kblockd for the elevator).
void BlockLayer::unplug_device_locked(const char* parent, uint64_t* cause) {
  k_.fn("__generic_unplug_device", parent, 20);
  if (!blk_remove_plug()) return;
  ++*cause;
  do_request("__generic_unplug_device");
}

// __elv_add_request after the elevator took a new request: rq.count[READ] +
// rq.count[WRITE] - in_flight (the requests queued and not started: none is in flight
// while the queue is plugged) reaching unplug_thresh runs the queue in the submitter.
void BlockLayer::elv_added_request(const Request& rq) {
  if (!plugging_timer()) return;
  as_antic_stop(rq);  // as_add_request -> as_update_arq
  if (plugged_ && queue_.size() == size_t(k_.params().block.unplug_thresh))
    unplug_device_locked("__elv_add_request", &stats_.unplugs_thresh);
}

// The unplug_timer's function, in the timer softirq: the queue runs from kblockd.
void BlockLayer::blk_unplug_timeout() {
  k_.fn("blk_unplug_timeout", "run_timer_softirq", 20);
  kblockd_schedule_work(
      &unplug_work_pending_,
      [this] {
        k_.fn("blk_unplug_work", "worker_thread", 20);
        generic_unplug_device("blk_unplug_work", &stats_.unplugs_timer);
      },
      "blk_unplug_timeout");
}

void BlockLayer::unplug_after_submit() {
  if (!plugging_timer()) generic_unplug_device();
}

// A task about to sleep on a page (block_sync_page) or buffer (sync_buffer) under I/O
// runs the queue first (mapping->backing_dev_info->unplug_io_fn).
void BlockLayer::sync_page(const char* via, const char* parent) {
  if (!plugging_timer()) return;
  k_.fn(via, parent, 20);
  k_.fn("blk_backing_dev_unplug", via, 20);
  generic_unplug_device("blk_backing_dev_unplug", &stats_.unplugs_wait);
}

}  // namespace latsim::kernel
