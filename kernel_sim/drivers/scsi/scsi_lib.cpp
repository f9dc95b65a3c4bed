// The 2.4 SCSI mid-layer for sda (drivers/scsi/scsi_lib.c, scsi.c, sd.c): the queue's
// request_fn turns requests into commands up to the device's queue depth and hands each
// to the host's queuecommand; the host's completions are queued by scsi_done for the
// SCSI bottom half, which ends the requests and runs the queue again. io_request_lock is
// the queue lock (BlockLayer::ide_lock_, named io_request_lock for sda).
#include <algorithm>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

// scsi_lib.c scsi_request_fn, entered with io_request_lock held and interrupts off.
void BlockLayer::scsi_request_fn(const char* parent) {
  k_.fn("scsi_request_fn", parent, 80, 1);
  const size_t depth = size_t(k_.params().block.aic7xxx.tag_depth);
  while (!plugged_ && !queue_.empty() && scsi_cmds_.size() < depth) {  // SDpnt->device_busy
    const int next = elv_next_request();
    if (next < 0) break;  // anticipating the last reader's next read
    uint8_t tag = 0;      // the lowest free tag (Scsi_Cmnd of the device's pool)
    while (scsi_cmds_.count(tag)) ++tag;
    Request& rq = scsi_cmds_[tag] = std::move(queue_[size_t(next)]);
    queue_.erase(queue_.begin() + next);  // blkdev_dequeue_request
    if (!busy_) {
      active_blame_ = {active_blame_.seq + 1, rq.sector, rq.nr_sectors, rq.write, rq.pid, rq.comm};
    }
    busy_ = true;
    stats_.max_request_sectors = std::max<uint64_t>(stats_.max_request_sectors, rq.nr_sectors);
    LATSIM_DEBUG(block, k_.log_who(), "sda tag {}: {} sector {} +{}, {} queued", tag,
                 rq.write ? "write" : "read", rq.sector, rq.nr_sectors, queue_.size());
    k_.fn("scsi_init_cmd_from_req", "scsi_request_fn", 60, 1);
    k_.fn("sd_init_command", "scsi_init_cmd_from_req", 80, 1);  // READ_10 / WRITE_10
    scsi_init_io(tag, rq);
    k_.spin_unlock_irq(ide_lock_, {"scsi_request_fn", "unlock"});
    scsi_dispatch_cmd(tag);
    k_.spin_lock_irq(ide_lock_, "scsi_request_fn");
  }
}

// scsi_init_io: the request's segments as the host's scatter-gather list (struct
// ahc_dma_seg: address, length, the last flagged), in the tag's SG list page.
void BlockLayer::scsi_init_io(uint8_t tag, const Request& rq) {
  const auto segs = blk_rq_map_sg(rq);
  k_.fn("scsi_init_io", "scsi_request_fn", 40 + 20 * segs.size(), 1);
  std::vector<uint32_t> sg;
  for (auto [addr, len] : segs) sg.insert(sg.end(), {uint32_t(addr), len});
  sg.back() |= 0x80000000u;  // AHC_DMA_LAST_SEG
  k_.this_cpu().mem_write(kSgLists + uint64_t(tag) * 2048, sg.data(), sg.size() * 4);
}

// scsi.c scsi_dispatch_cmd: the host's queuecommand under io_request_lock.
void BlockLayer::scsi_dispatch_cmd(uint8_t tag) {
  k_.fn("scsi_dispatch_cmd", "scsi_request_fn", 60, 1);
  const bool flags = k_.spin_lock_irqsave(ide_lock_, "scsi_dispatch_cmd");
  ahc_linux_queue(tag);
  k_.spin_unlock_irqrestore(ide_lock_, flags, {"scsi_dispatch_cmd", "unlock"});
}

// scsi.c scsi_done, from the host's interrupt: queue the command for the bottom half.
void BlockLayer::scsi_done(uint8_t tag) {
  k_.fn("scsi_done", "ahc_linux_run_complete_queue", 40, 1);
  const bool flags = k_.spin_lock_irqsave(scsi_bhqueue_lock_, "scsi_done");
  scsi_bh_queue_.push_back(tag);
  k_.spin_unlock_irqrestore(scsi_bhqueue_lock_, flags, {"scsi_done", "unlock"});
  k_.fn("mark_bh", "scsi_done", 20);  // SCSI_BH: a bottom half, run as HI_SOFTIRQ
  k_.__raise_softirq_irqoff(HI_SOFTIRQ);
}

// scsi.c scsi_bottom_half_handler: take the done queue, finish each command.
void BlockLayer::scsi_bottom_half_handler() {
  k_.fn("scsi_bottom_half_handler", "bh_action", 40, 1);
  const bool flags = k_.spin_lock_irqsave(scsi_bhqueue_lock_, "scsi_bottom_half_handler");
  std::deque<uint8_t> done;
  done.swap(scsi_bh_queue_);
  k_.spin_unlock_irqrestore(scsi_bhqueue_lock_, flags, {"scsi_bottom_half_handler", "unlock"});
  for (uint8_t tag : done) {
    k_.fn("scsi_finish_command", "scsi_bottom_half_handler", 60, 1);
    k_.fn("rw_intr", "scsi_finish_command", 60, 1);  // sd.c
    scsi_io_completion(tag);
  }
}

// scsi_lib.c scsi_io_completion -> __scsi_end_request, then scsi_queue_next_request.
void BlockLayer::scsi_io_completion(uint8_t tag) {
  k_.fn("scsi_io_completion", "rw_intr", 60, 1);
  const Request rq = std::move(scsi_cmds_[tag]);
  scsi_cmds_.erase(tag);
  end_that_request_first(rq, "__scsi_end_request");
  bool flags = k_.spin_lock_irqsave(ide_lock_, "__scsi_end_request");
  k_.fn("end_that_request_last", "__scsi_end_request", 40, 1);
  as_completed_request(rq);
  busy_ = !scsi_cmds_.empty();
  stats_.ios_completed++;
  k_.spin_unlock_irqrestore(ide_lock_, flags, {"__scsi_end_request", "unlock"});
  request_freed();
  k_.fn("scsi_queue_next_request", "__scsi_end_request", 40, 1);
  flags = k_.spin_lock_irqsave(ide_lock_, "scsi_queue_next_request");
  scsi_request_fn("scsi_queue_next_request");
  k_.spin_unlock_irqrestore(ide_lock_, flags, {"scsi_queue_next_request", "unlock"});
}

}  // namespace latsim::kernel
