// drivers/block/as-iosched.c (2.6.9, the default elevator) reduced to what decides
// which request the drive gets next: reads and writes are served in batches
// (as_batch_expired: 500 ms of reads, 125 ms of writes, a batch ending only when the
// other direction has requests waiting), and when a read completes with no read
// queued, the queue waits up to antic_expire (HZ/150) for the same reader's next one
// instead of starting a write (as_antic_waitreq), so a sequential reader streams
// against writeback. noop: the oldest request first (FIFO with back-merging).
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
int64_t hz_div(const Kernel& k, int64_t d) {
  const int64_t j = int64_t(k.params().hz) / d;
  return j ? j : 1;
}
// jiffies as this CPU's tick count (the grid its timer wheel runs on); the CPUs'
// grids are aligned, so a difference across CPUs is off by at most one.
int64_t jiffies_now(Kernel& k) { return int64_t(k.local_ticks(k.smp_processor_id())); }
}  // namespace

int BlockLayer::elv_next_request() {
  if (k_.params().block.elevator != "anticipatory") return 0;
  k_.fn("as_dispatch_request", "elv_next_request", 120, 1);
  int reads = -1, writes = -1;  // the oldest of each direction (as_data's fifo heads)
  for (size_t i = 0; i < queue_.size(); ++i) {
    int& head = queue_[i].write ? writes : reads;
    if (head < 0) head = int(i);
  }
  const int64_t now = jiffies_now(k_);
  const int64_t batch = as_.write_batch ? hz_div(k_, 8) : hz_div(k_, 2);
  const bool expired = now - as_.batch_start >= batch;
  if (!(reads >= 0 && writes >= 0 && expired)) {  // the batch runs on
    if (!as_.write_batch) {
      if (reads >= 0) return reads;
      // as_can_anticipate: a read finished lately and its reader may send the next.
      if (as_.reader_may_send && now - as_.last_read_done < hz_div(k_, 150)) {
        if (!as_.antic_armed) {
          as_.antic_armed = true;
          const uint64_t gen = ++as_.antic_gen;
          k_.timers(k_.smp_processor_id()).add(as_.last_read_done + hz_div(k_, 150), [this, gen] {
            as_antic_timeout(gen);
          });
        }
        return -1;
      }
    } else if (writes >= 0) {
      return writes;
    }
  }
  // Change direction: a read batch after writes, a write batch after reads.
  as_.write_batch = reads < 0 || (writes >= 0 && !as_.write_batch);
  as_.batch_start = now;
  as_.antic_armed = false;
  return as_.write_batch ? writes : reads;
}

void BlockLayer::as_completed_request(const Request& rq) {
  if (rq.write) return;
  as_.last_read_done = jiffies_now(k_);
  as_.reader_may_send = true;
  as_.antic_armed = false;  // a new wait starts from this completion
  ++as_.antic_gen;
}

// as_antic_timeout (the antic_timer, in the timer softirq): the reader sent nothing;
// kblockd runs the queue (kblockd_schedule_work(&ad->antic_work)).
void BlockLayer::as_antic_timeout(uint64_t gen) {
  if (gen != as_.antic_gen || !as_.antic_armed) return;
  k_.fn("as_antic_timeout", "run_timer_softirq", 60, 1);
  as_.antic_armed = false;
  as_.reader_may_send = false;  // the anticipation is over: the next dispatch may switch
  kblockd_schedule_work(
      &antic_work_pending_, [this] { as_work_handler(); }, "as_antic_timeout");
}

// as_add_request -> as_update_arq -> as_antic_stop (timer plugging; with inline plugging
// the submitter runs the queue itself): a read arrived while the queue waits for the last
// reader's next one, so the wait ends and kblockd runs the queue (as_work_handler).
void BlockLayer::as_antic_stop(const Request& rq) {
  if (k_.params().block.elevator != "anticipatory" || rq.write || !as_.antic_armed) return;
  k_.fn("as_antic_stop", "as_add_request", 40, 1);
  as_.antic_armed = false;
  ++as_.antic_gen;  // del_timer(&ad->antic_timer)
  kblockd_schedule_work(
      &antic_work_pending_, [this] { as_work_handler(); }, "as_antic_stop");
}

void BlockLayer::as_work_handler() {
  k_.fn("as_work_handler", "worker_thread", 40, 1);
  k_.spin_lock_irq(ide_lock_, "as_work_handler");
  do_request("as_work_handler", false);
  k_.spin_unlock_irq(ide_lock_, {"as_work_handler", "unlock"});
}

}  // namespace latsim::kernel
