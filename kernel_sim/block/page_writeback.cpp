// mm/filemap.c generic_file_write and mm/page-writeback.c (2.6.9): write(2)
// dirties page-cache pages; above dirty_background_ratio pdflush writes them back,
// above dirty_ratio the writer itself writes and waits (balance_dirty_pages). With
// ext3 data=ordered, each journal commit first writes the transaction's data pages.
#include <algorithm>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
constexpr uint64_t kTotalPages = 131072;                   // 512 MB
constexpr uint64_t kBackgroundThresh = kTotalPages / 10;   // dirty_background_ratio 10
constexpr uint64_t kDirtyThresh = kTotalPages * 40 / 100;  // dirty_ratio 40
constexpr uint64_t kWriteChunk = 32 + 32 / 2;              // sync_writeback_pages()
constexpr uint64_t kMaxWritebackPages = 1024;              // MAX_WRITEBACK_PAGES
}  // namespace

void BlockLayer::setup_write_file(uint64_t pages, uint64_t start_lba) {
  init_file(files_[kWriteFile], pages, start_lba);
  start_pdflush();
}

void BlockLayer::start_pdflush() {
  if (!pdflush_)
    pdflush_ = k_.create_task(
        "pdflush", [this] { pdflush(); }, Policy::Normal, 0);
}

void BlockLayer::write_page(FileId fid, uint64_t index, const char* parent) {
  File& f = files_[fid];
  k_.fn("generic_file_aio_write_nolock", parent, 80, 1);
  // Wait if an earlier write of this page is still in flight (wait_on_page_writeback).
  while (f.w[index] == WState::Writeback) {
    sync_page("block_sync_page", "wait_on_page_writeback");
    blk_congestion_wait();
  }
  k_.fn("__grab_cache_page", "generic_file_buffered_write", 250, 2);
  // find_lock_page: a page still being read in is waited for; a cached page is written
  // in place, a missing one is allocated (a fresh frame) and added to the cache.
  wait_on_page_locked({fid, index});
  const bool cached = f.pages[index] == PageState::Uptodate;
  if (cached)
    f.wframes[index] = f.frames[index];
  else if (f.w[index] == WState::Clean)
    f.wframes[index] = (4096 + rng_.below(131072 - 4096)) * 4096;
  k_.fn("ext3_prepare_write", "generic_file_buffered_write", 300, 3);
  k_.might_sleep("__copy_from_user_ll");
  // filemap_copy_from_user's fast path, under kmap_atomic: 4 KiB into a page that is not
  // in the cache, every destination line misses.
  k_.kmap_atomic("filemap_copy_from_user");
  k_.fn("__copy_from_user_ll", "filemap_copy_from_user", 1100, 4, 128);
  k_.kunmap_atomic("filemap_copy_from_user");
  k_.fn("ext3_commit_write", "generic_file_buffered_write", 300, 3);
  if (f.w[index] == WState::Clean) {
    k_.fn("__set_page_dirty_nobuffers", "set_page_dirty", 80, 1);
    f.w[index] = WState::Dirty;
    f.ndirty++;
    nr_dirty_++;
    stats_.pages_dirtied++;
    stats_.max_dirty = std::max(stats_.max_dirty, nr_dirty_);
    if (!f.on_dirty_list) {  // __mark_inode_dirty: onto sb->s_dirty
      f.on_dirty_list = true;
      dirty_files_.push_back(fid);
    }
    if (data_ordered_ && !f.in_transaction) {  // journal_dirty_data: the running transaction
      f.in_transaction = true;
      transaction_.push_back(fid);
    }
  }
  // The written page is a page-cache page: up to date for reads until it is reclaimed
  // (clean again, after writeback), and marked accessed as generic_file_buffered_write does.
  if (!cached) {
    f.pages[index] = PageState::Uptodate;
    f.frames[index] = f.wframes[index];
    lru_cache_add({fid, index});
  }
  lru_.mark_accessed(key({fid, index}));
  balance_dirty_pages();
}

void BlockLayer::balance_dirty_pages() {
  k_.fn("balance_dirty_pages_ratelimited", "generic_file_buffered_write", 30);
  if (nr_dirty_ > kBackgroundThresh && !pdflush_running_ && pdflush_ &&
      pdflush_->state != TASK_RUNNING) {
    k_.fn("pdflush_operation", "balance_dirty_pages", 40);  // background_writeout
    k_.try_to_wake_up(pdflush_, "pdflush_operation");
  }
  while (nr_dirty_ + nr_writeback_ > kDirtyThresh) {
    stats_.throttled++;
    k_.fn("balance_dirty_pages", "balance_dirty_pages_ratelimited", 80, 1);
    writeback_pages(kWriteChunk, "writeback_inodes");
    blk_congestion_wait();
  }
}

// writeback_inodes: the dirty files in the order they were dirtied, each by
// mpage_writepages, until `max_pages` are under writeback.
uint64_t BlockLayer::writeback_pages(uint64_t max_pages, const char* parent) {
  uint64_t done = 0;
  if (dirty_files_.empty()) k_.fn("mpage_writepages", parent, 100, 1);  // an empty pass
  while (done < max_pages && !dirty_files_.empty()) {
    const FileId f = dirty_files_.front();
    done += writeback_file(f, max_pages - done, parent);
    if (files_[f].ndirty) break;  // the budget ran out inside this file
    off_dirty_list(f);
  }
  unplug_after_submit();
  return done;
}

void BlockLayer::off_dirty_list(FileId f) {
  if (!files_[f].on_dirty_list) return;  // another writer took it off while this one slept
  files_[f].on_dirty_list = false;
  dirty_files_.erase(std::find(dirty_files_.begin(), dirty_files_.end(), f));
}

// mpage_writepages: runs of dirty pages become write bios of up to max_sectors.
uint64_t BlockLayer::writeback_file(FileId fid, uint64_t max_pages, const char* parent) {
  File& f = files_[fid];
  k_.fn("mpage_writepages", parent, 100, 1);
  uint64_t done = 0, run_start = 0, run_len = 0;
  auto flush = [&] {
    while (run_len) {
      const uint32_t n = std::min<uint32_t>(uint32_t(run_len), max_sectors_ / 8);
      make_write_request(fid, run_start, n);
      run_start += n;
      run_len -= n;
    }
  };
  for (uint64_t scanned = 0; scanned < f.w.size() && done < max_pages; ++scanned) {
    const uint64_t i = f.wb_next;
    f.wb_next = (f.wb_next + 1) % f.w.size();
    if (f.w[i] != WState::Dirty) {
      flush();
      continue;
    }
    if (run_len && i != run_start + run_len) flush();  // wrapped to the file's start
    k_.fn("__set_page_writeback", "mpage_writepage", 60, 1);
    f.w[i] = WState::Writeback;
    f.ndirty--;
    nr_dirty_--;
    nr_writeback_++;
    if (!run_len) run_start = i;
    run_len++;
    done++;
  }
  flush();
  return done;
}

void BlockLayer::make_write_request(FileId f, uint64_t first_page, uint32_t npages) {
  // get_request_wait: the queue holds at most nr_requests; unplug it, wait for one to finish.
  if (queue_.size() >= nr_requests_ && plugging_timer()) generic_unplug_device("get_request_wait");
  while (queue_.size() >= nr_requests_) blk_congestion_wait();
  stats_.bios++;
  k_.fn("submit_bio", "mpage_bio_submit", 60, 1);
  k_.fn("generic_make_request", "submit_bio", 80, 1);
  k_.fn("__make_request", "generic_make_request", 100, 1);
  k_.spin_lock_irq(ide_lock_, "__make_request");
  const uint64_t sector = files_[f].start_lba + first_page * 8;
  const uint32_t nsect = npages * 8;
  const bool plugged = plug_if_empty();  // an empty queue: plugged, nothing to merge with
  if (!plugged) k_.fn("elv_merge", "__make_request", 60, 1);
  if (!plugged && !queue_.empty() && queue_.back().write &&
      queue_.back().sector + queue_.back().nr_sectors == sector &&
      queue_.back().nr_sectors + nsect <= max_sectors_) {
    Request& rq = queue_.back();
    rq.nr_sectors += nsect;
    for (uint32_t i = 0; i < npages; ++i) rq.pages.push_back({f, first_page + i});
    stats_.merges++;
  } else {
    k_.fn("get_request", "__make_request", 120, 2);
    Request rq;
    rq.sector = sector;
    rq.nr_sectors = nsect;
    rq.write = true;
    rq.queued = k_.jiffies();
    rq.pid = k_.current().pid;
    rq.comm = k_.current().comm;
    for (uint32_t i = 0; i < npages; ++i) rq.pages.push_back({f, first_page + i});
    LATSIM_DEBUG(block, k_.log_who(), "submit write sector {} +{}", sector, nsect);
    queue_.push_back(std::move(rq));
    stats_.requests++;
    stats_.write_requests++;
    elv_added_request(queue_.back());
  }
  k_.spin_unlock_irq(ide_lock_, {"__make_request", "unlock"});
}

void BlockLayer::write_sync(FileId fid, uint64_t first_page, uint32_t npages, const char* parent) {
  File& f = files_[fid];
  k_.fn("ll_rw_block", parent, 60, 1);
  for (uint64_t i = first_page; i < first_page + npages; ++i) {
    if (f.w[i] == WState::Dirty) nr_dirty_--, f.ndirty--;
    while (f.w[i] == WState::Writeback) {  // an earlier write: lock_buffer waits for it
      sync_page("sync_buffer", "__lock_buffer");
      blk_congestion_wait();
    }
    f.w[i] = WState::Writeback;
    nr_writeback_++;
  }
  for (uint32_t done = 0; done < npages;) {
    const uint32_t n = std::min<uint32_t>(npages - done, max_sectors_ / 8);
    make_write_request(fid, first_page + done, n);
    done += n;
  }
  unplug_after_submit();
  k_.fn("wait_on_buffer", parent, 30);
  for (uint64_t i = first_page; i < first_page + npages; ++i)
    while (f.w[i] == WState::Writeback) {
      sync_page("sync_buffer", "__wait_on_buffer");
      blk_congestion_wait();
    }
}

void BlockLayer::end_page_writeback(PageRef p) {
  k_.fn("end_page_writeback", "mpage_end_io_write", 40, 1);
  files_[p.file].w[p.index] = WState::Clean;  // written: clean, reclaimable from the cache
  nr_writeback_--;
  stats_.pages_written++;
}

// blk_congestion_wait: sleep until a request completes.
void BlockLayer::blk_congestion_wait() {
  k_.fn("blk_congestion_wait", "balance_dirty_pages", 40);
  congestion_waiters_.push_back(&k_.current());
  k_.set_current_state(TASK_UNINTERRUPTIBLE);
  k_.fn("io_schedule_timeout", "blk_congestion_wait", 30);
  k_.schedule("io_schedule_timeout");
}

// pdflush background_writeout: write while above the background threshold.
void BlockLayer::pdflush() {
  for (;;) {
    k_.set_current_state(TASK_INTERRUPTIBLE);
    while (nr_dirty_ <= kBackgroundThresh) {
      k_.schedule("pdflush");
      k_.set_current_state(TASK_INTERRUPTIBLE);
    }
    k_.set_current_state(TASK_RUNNING);
    pdflush_running_ = true;
    while (nr_dirty_ > kBackgroundThresh) {
      k_.fn("background_writeout", "__pdflush", 60, 1);
      writeback_pages(std::min(kMaxWritebackPages, nr_dirty_ - kBackgroundThresh), "wb_kupdate");
      k_.cond_resched("background_writeout");
    }
    pdflush_running_ = false;
  }
}

// ext3 data=ordered (fs/jbd/commit.c journal_submit_data_buffers, journal_wait_on_data):
// the commit writes the data pages of the files dirtied in the transaction and waits for
// them before the metadata goes to the log (fs/ext3.cpp).
void BlockLayer::journal_submit_data_buffers() {
  const auto files = std::move(transaction_);
  transaction_.clear();
  for (FileId fid : files) {
    File& f = files_[fid];
    f.in_transaction = false;
    k_.fn("journal_submit_data_buffers", "journal_commit_transaction", 100, 1);
    if (f.ndirty) writeback_file(fid, f.ndirty, "journal_submit_data_buffers");
    if (!f.ndirty) off_dirty_list(fid);
  }
  unplug_after_submit();
  for (FileId fid : files)  // journal_wait_on_data: wait_on_buffer of each
    for (uint64_t i = 0; i < files_[fid].w.size(); ++i)
      while (files_[fid].w[i] == WState::Writeback) {
        sync_page("sync_buffer", "__wait_on_buffer");
        blk_congestion_wait();
      }
}

}  // namespace latsim::kernel
