// drivers/block/ll_rw_blk.c: __make_request merges a bio into the request at
// the tail of the queue while the result stays within max_sectors; bios of
// different files merge when their sectors are adjacent.
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

params::Table<BlockParams> block_queue_keys() {
  using namespace params;
  using P = BlockParams;
  return {
      bind<P>(choice("elevator", {"auto", "noop", "anticipatory"},
                     "the hda queue's I/O scheduler: anticipatory (as-iosched.c: read and "
                     "write batches of 500 / 125 ms, 6 ms waits for the last reader's next "
                     "read), noop (FIFO with back-merging) or auto (anticipatory on 2.6.9, "
                     "its default elevator; noop on the other flavours)"),
              &P::elevator),
      bind<P>(choice("plugging", {"auto", "inline", "timer"},
                     "request-queue plugging: timer (2.6.9 ll_rw_blk.c: a request on an empty "
                     "queue plugs it; it runs at unplug_thresh queued requests, when a task "
                     "waits on the I/O, or from kblockd/N when the unplug timer fires), inline "
                     "(the queue runs at once) or auto (timer on 2.6.9, inline elsewhere)"),
              &P::plugging),
      bind<P>(choice("page_lru", {"active_inactive", "fifo"},
                     "page-cache reclaim: active_inactive (mm/swap.c mark_page_accessed moves a "
                     "page read a second time to the active list; reclaim frees the inactive "
                     "list's oldest and refills it from the active list in proportion) or fifo "
                     "(the oldest page first, however often it was read)"),
              &P::page_lru),
      bind<P>(with_source(integer("unplug_delay_ms", 1, 1000, "ms",
                                  "q->unplug_delay of the plug timer (ll_rw_blk.c: 3 ms)"),
                          "drivers/block/ll_rw_blk.c blk_queue_make_request: (3 * HZ) / 1000"),
              &P::unplug_delay_ms),
      bind<P>(with_source(integer("unplug_thresh", 1, 128, "requests",
                                  "queued requests that unplug the queue in the submitter "
                                  "(ll_rw_blk.c: 4)"),
                          "drivers/block/ll_rw_blk.c blk_queue_make_request"),
              &P::unplug_thresh),
  };
}

params::Table<BlockParams> block_sysfs_keys() {
  using namespace params;
  using P = BlockParams;
  return {
      bind<P>(integer("/sys/block/hda/queue/max_sectors_kb", 4, 128, "KiB",
                      "largest request; sysfs accepts page size .. max_hw_sectors_kb (128)"),
              &P::max_sectors_kb),
      bind<P>(with_source(integer("/sys/block/hda/queue/read_ahead_kb", 0, 4096, "KiB",
                                  "read-ahead window (VM_MAX_READAHEAD 128)"),
                          "include/linux/mm.h VM_MAX_READAHEAD"),
              &P::read_ahead_kb),
  };
}

void BlockLayer::make_request(FileId f, uint64_t first_page, uint32_t npages) {
  stats_.bios++;
  k_.fn("submit_bio", "mpage_bio_submit", 60, 1);
  k_.fn("generic_make_request", "submit_bio", 80, 1);
  k_.fn("__make_request", "generic_make_request", 100, 1);
  k_.spin_lock_irq(ide_lock_, "__make_request");
  const uint64_t sector = files_[f].start_lba + first_page * 8;
  const uint32_t nsect = npages * 8;
  const bool plugged = plug_if_empty();  // an empty queue: plugged, nothing to merge with
  if (!plugged) k_.fn("elv_merge", "__make_request", 60, 1);
  if (!plugged && !queue_.empty() && !queue_.back().write &&
      queue_.back().sector + queue_.back().nr_sectors == sector &&
      queue_.back().nr_sectors + nsect <= max_sectors_) {
    Request& rq = queue_.back();  // back merge
    rq.nr_sectors += nsect;
    for (uint32_t i = 0; i < npages; ++i) rq.pages.push_back({f, first_page + i});
    stats_.merges++;
    LATSIM_DEBUG(block, k_.log_who(), "bio sector {} +{} merged: request sector {} +{}", sector,
                 nsect, rq.sector, rq.nr_sectors);
  } else {
    k_.fn("get_request", "__make_request", 120, 2);
    Request rq;
    rq.sector = sector;
    rq.nr_sectors = nsect;
    rq.queued = k_.jiffies();
    rq.pid = k_.current().pid;
    rq.comm = k_.current().comm;
    for (uint32_t i = 0; i < npages; ++i) rq.pages.push_back({f, first_page + i});
    LATSIM_DEBUG(block, k_.log_who(), "submit read sector {} +{}{}", sector, nsect,
                 plugged ? " (queue plugged)" : "");
    queue_.push_back(std::move(rq));
    stats_.requests++;
    stats_.read_requests++;
    elv_added_request(queue_.back());
  }
  k_.spin_unlock_irq(ide_lock_, {"__make_request", "unlock"});
}

void BlockLayer::generic_unplug_device(const char* parent, uint64_t* cause) {
  k_.fn("generic_unplug_device", parent, 40);
  k_.spin_lock_irq(ide_lock_, "generic_unplug_device");
  if (plugging_timer())
    unplug_device_locked("generic_unplug_device", cause ? cause : &stats_.unplugs_wait);
  else
    do_request("generic_unplug_device");  // inline: the queue is never plugged
  k_.spin_unlock_irq(ide_lock_, {"generic_unplug_device", "unlock"});
}

void BlockLayer::kblockd_schedule_work(bool* pending, std::function<void()> work,
                                       const char* parent) {
  k_.fn("kblockd_schedule_work", parent, 40, 1);
  kblockd_->queue_work(pending, std::move(work));  // queue_work: this CPU's worker
}

}  // namespace latsim::kernel
