#pragma once
// The block layer's and the IDE driver's parameters: the request queue's elevator and
// plugging, the page cache's reclaim order, hda's sysfs queue files and hdparm settings.
#include <string>
#include "common/params.h"

namespace latsim::kernel {

// hdparm's settings of hda (drivers/ide: drive->using_dma, drive->unmask, io_32bit).
struct Hdparm {
  bool dma = true;         // hdparm -d
  bool unmaskirq = false;  // hdparm -u
  bool io_32bit = false;   // hdparm -c
};

// The aic7xxx driver's options (aic7xxx=tag_info:..., drivers/scsi/aic7xxx).
struct Aic7xxxOptions {
  int tag_depth = 32;  // tagged commands per device: CONFIG_AIC7XXX_CMDS_PER_DEVICE's default
};

struct BlockParams {
  // The request queue's I/O scheduler: noop (FIFO with back-merging), anticipatory
  // (drivers/block/as-iosched.c) or auto, the flavour's (Flavour::elevator).
  std::string elevator = "auto";
  // Request-queue plugging: "inline", the queue runs as soon as a request is submitted;
  // "timer", 2.6.9's plug (drivers/block/ll_rw_blk.c): a request on an empty queue plugs
  // it, and it runs when unplug_thresh requests are queued (in the submitter), when a
  // task waits on the I/O (sync_page/sync_buffer -> generic_unplug_device), or from
  // kblockd/N when the unplug_timer fires unplug_delay ticks later (blk_unplug_timeout);
  // auto, the flavour's (Flavour::plugging).
  std::string plugging = "auto";
  // The page cache's reclaim order (kernel_sim/mm/page_lru.h): "active_inactive", 2.6.9's
  // two lists (pages read twice are kept over pages read once), or "fifo", oldest first.
  std::string page_lru = "active_inactive";
  int unplug_delay_ms = 3;   // blk_queue_make_request: q->unplug_delay = (3 * HZ) / 1000, min 1
  int unplug_thresh = 4;     // blk_queue_make_request: q->unplug_thresh = 4
  int max_sectors_kb = 128;  // /sys/block/hda/queue/max_sectors_kb
  int read_ahead_kb = 128;   // /sys/block/hda/queue/read_ahead_kb
  int pagecache_mb = 256;    // assumption: page cache share of 512 MB during a build (no key)
  Hdparm hdparm;
  Aic7xxxOptions aic7xxx;
};

// kernel.{elevator, plugging, page_lru, unplug_delay_ms, unplug_thresh}, paths under
// "kernel." (ll_rw_blk.cpp).
params::Table<BlockParams> block_queue_keys();
// hda's queue files, paths from /sys (ll_rw_blk.cpp).
params::Table<BlockParams> block_sysfs_keys();
// kernel.hdparm.*, paths under "kernel.hdparm." (ide.cpp).
params::Table<Hdparm> hdparm_keys();
// kernel.aic7xxx.*, paths under "kernel.aic7xxx." (drivers/scsi/aic7xxx.cpp).
params::Table<Aic7xxxOptions> aic7xxx_keys();

}  // namespace latsim::kernel
