// mm/filemap.c + mm/readahead.c: the pages of each file, its read-ahead windows of
// read_ahead_kb, waiting for locked pages, and the copy to user space.
#include <algorithm>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

BlockLayer::BlockLayer(Kernel& k)
    : k_(k),
      rng_(k.params().seed, "page_alloc"),
      files_(2),  // kReadFile and kWriteFile, empty until set up
      lru_(k.params().block.page_lru == "fifo" ? PageLru::Policy::Fifo
                                               : PageLru::Policy::ActiveInactive),
      capacity_pages_(uint64_t(k.params().block.pagecache_mb) * 256),
      max_sectors_(uint32_t(k.params().block.max_sectors_kb) * 2),
      ra_pages_(uint64_t(k.params().block.read_ahead_kb) / 4),
      // 2.4's one queue lock (ide_lock on 2.6's IDE): the SCSI mid-layer's io_request_lock
      ide_lock_(k.params().scsi_disk ? "io_request_lock" : "ide_lock") {}

// A file's pages, empty of data: none cached, none dirty.
void BlockLayer::init_file(File& f, uint64_t pages, uint64_t start_lba) {
  f.start_lba = start_lba;
  f.pages.assign(pages, PageState::Absent);
  f.frames.assign(pages, 0);
  f.ra = {};
  f.w.assign(pages, WState::Clean);
  f.wframes.assign(pages, 0);
}

void BlockLayer::setup_file(uint64_t pages, uint64_t start_lba) {
  init_file(files_[kReadFile], pages, start_lba);
}

FileId BlockLayer::create_file(uint64_t pages, uint64_t start_lba) {
  files_.emplace_back();
  init_file(files_.back(), pages, start_lba);
  return FileId(files_.size() - 1);
}

void BlockLayer::prefill(FileId fid) {
  File& f = files_[fid];
  for (uint64_t i = 0; i < f.pages.size(); ++i) {
    if (f.pages[i] != PageState::Absent) continue;
    f.pages[i] = PageState::Uptodate;
    f.frames[i] = (4096 + rng_.below(131072 - 4096)) * 4096;
    lru_.add(key({fid, i}));
  }
}

uint64_t BlockLayer::frame_of(PageRef p) const { return files_[p.file].frames[p.index]; }

void BlockLayer::add_to_page_cache(PageRef p) {
  k_.fn("add_to_page_cache_lru", "mpage_readpages", 250, 2);
  File& f = files_[p.file];
  f.pages[p.index] = PageState::Locked;
  // __alloc_pages: any free frame above 16 MB (ZONE_NORMAL) of the 512 MB.
  f.frames[p.index] = (4096 + rng_.below(131072 - 4096)) * 4096;
  lru_cache_add(p);
}

// lru_cache_add, and reclaim while the cache is over its size: shrink_list keeps a page
// under read I/O, dirty or under writeback (it goes back on the list) and frees the rest.
void BlockLayer::lru_cache_add(PageRef p) {
  lru_.add(key(p));
  lru_.shrink(capacity_pages_, [this](uint64_t k) {
    const PageRef victim = page_of(k);
    File& f = files_[victim.file];
    PageState& st = f.pages[victim.index];
    if (st == PageState::Locked || f.w[victim.index] != WState::Clean) return false;
    st = PageState::Absent;
    stats_.evictions++;
    return true;
  });
}

void BlockLayer::submit_pages(FileId f, uint64_t first, uint64_t count) {
  // mpage_readpages: add each missing page to the cache, then bios of up to
  // the queue's max_sectors (bio_add_page refuses beyond it).
  uint64_t run_start = first, run_len = 0;
  auto flush = [&] {
    while (run_len) {
      const uint32_t n = std::min<uint32_t>(uint32_t(run_len), max_sectors_ / 8);
      make_request(f, run_start, n);
      run_start += n;
      run_len -= n;
    }
  };
  for (uint64_t i = first; i < first + count; ++i) {
    if (files_[f].pages[i] != PageState::Absent) {
      flush();
      run_start = i + 1;
      continue;
    }
    add_to_page_cache({f, i});
    stats_.pages_submitted++;
    if (!run_len) run_start = i;
    run_len++;
  }
  flush();
}

// page_cache_readahead with the file's own file_ra_state: a current window and an
// ahead window of read_ahead_kb each, never past the end of the file
// (do_page_cache_readahead stops at i_size). A read outside both windows (the first
// read, or a seek) starts a new current window there; reading into the ahead window
// makes it current, and the next read inside it submits the next ahead window
// ("when the second page in the old ahead window is requested"). Simplification: the
// 2.6.9 window starts at max/2 and grows by 2 pages per hit; here it is max at once.
void BlockLayer::page_cache_readahead(FileId fid, uint64_t index) {
  File& f = files_[fid];
  RaState& ra = f.ra;
  const uint64_t end = f.pages.size();
  if (ra_pages_ == 0 || index == ra.prev_page) return;  // no read-ahead; the same page again
  ra.prev_page = index;
  const bool in_current = ra.open && index >= ra.start && index < ra.start + ra.size;
  const bool in_ahead =
      ra.ahead_size && index >= ra.ahead_start && index < ra.ahead_start + ra.ahead_size;
  uint64_t start = 0, count = 0;
  if (!in_current && !in_ahead) {  // first read or a seek: a new current window here
    ra.open = true;
    ra.start = index;
    ra.size = std::min<uint64_t>(ra_pages_, end - index);
    ra.ahead_start = ra.ahead_size = 0;
    start = ra.start, count = ra.size;
  } else if (in_ahead) {  // stepped into the ahead window: it becomes the current one
    ra.start = ra.ahead_start;
    ra.size = ra.ahead_size;
    ra.ahead_start = ra.ahead_size = 0;
    return;
  } else if (ra.ahead_size == 0 && ra.start + ra.size < end) {  // build the ahead window
    ra.ahead_start = ra.start + ra.size;
    ra.ahead_size = std::min<uint64_t>(ra_pages_, end - ra.ahead_start);
    start = ra.ahead_start, count = ra.ahead_size;
  } else {
    return;
  }
  k_.fn("page_cache_readahead", "do_generic_mapping_read", 120, 1);
  k_.fn("do_page_cache_readahead", "page_cache_readahead", 80, 1);
  submit_pages(fid, start, count);
  unplug_after_submit();  // 2.6.9's read-ahead leaves the queue plugged
}

void BlockLayer::wait_on_page_locked(PageRef p) {
  while (files_[p.file].pages[p.index] == PageState::Locked) {
    waiters_[key(p)].push_back(&k_.current());
    k_.set_current_state(TASK_UNINTERRUPTIBLE);
    sync_page("block_sync_page", "__wait_on_bit");  // the page's I/O may still be plugged
    k_.fn("io_schedule", "__wait_on_bit", 30);
    k_.schedule("io_schedule");
  }
}

void BlockLayer::unlock_page(PageRef p) {
  files_[p.file].pages[p.index] = PageState::Uptodate;
  k_.fn("unlock_page", "mpage_end_io_read", 30, 1);
  auto it = waiters_.find(key(p));
  if (it == waiters_.end()) return;
  auto waiters = std::move(it->second);
  waiters_.erase(it);
  k_.fn("__wake_up_common", "unlock_page", 40, 1);
  for (Task* t : waiters) k_.try_to_wake_up(t, "__wake_up_common");
}

void BlockLayer::find_page(FileId f, uint64_t index, const char* parent) {
  k_.fn("find_get_page", parent, 60, 1);
  page_cache_readahead(f, index);
  if (files_[f].pages[index] == PageState::Absent) {  // no read-ahead: read this page alone
    submit_pages(f, index, 1);
    unplug_after_submit();
  }
  wait_on_page_locked({f, index});
}

void BlockLayer::fault_page(FileId f, uint64_t index) {
  find_page(f, index, "filemap_nopage");
  k_.fn("mark_page_accessed", "filemap_nopage", 30, 1);
  lru_.mark_accessed(key({f, index}));
  stats_.pages_read++;
}

void BlockLayer::read_page(FileId f, uint64_t index, const char* parent) {
  find_page(f, index, parent);
  k_.fn("file_read_actor", parent, 40);
  k_.might_sleep("__copy_to_user_ll");  // fault_in_pages_writeable
  // The fast path: 4 KiB copied with rep movsl under kmap_atomic; the source lines were
  // just written by DMA.
  k_.kmap_atomic("file_read_actor");
  k_.fn("__copy_to_user_ll", "file_read_actor", 1100, 4, 128);
  k_.kunmap_atomic("file_read_actor");
  k_.fn("mark_page_accessed", parent, 30, 1);
  lru_.mark_accessed(key({f, index}));
  stats_.pages_read++;
}

}  // namespace latsim::kernel
