// mm/filemap.c + mm/readahead.c: the pages of the file, read-ahead windows of
// read_ahead_kb, waiting for locked pages, and the copy to user space.
#include <algorithm>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

BlockLayer::BlockLayer(Kernel& k)
    : k_(k),
      rng_(k.params().seed, "page_alloc"),
      capacity_pages_(uint64_t(k.params().pagecache_mb) * 256),
      max_sectors_(uint32_t(k.params().max_sectors_kb) * 2),
      ra_pages_(uint64_t(k.params().read_ahead_kb) / 4) {}

void BlockLayer::setup_file(uint64_t pages, uint64_t start_lba) {
  pages_.assign(pages, PageState::Absent);
  frames_.assign(pages, 0);
  start_lba_ = start_lba;
}

uint64_t BlockLayer::frame_of(uint64_t index) { return frames_[index]; }

void BlockLayer::add_to_page_cache(uint64_t index) {
  k_.fn("add_to_page_cache_lru", "mpage_readpages", 250, 2);
  pages_[index] = PageState::Locked;
  // __alloc_pages: any free frame above 16 MB (ZONE_NORMAL) of the 512 MB.
  frames_[index] = (4096 + rng_.below(131072 - 4096)) * 4096;
  lru_.push_back(index);
  while (lru_.size() > capacity_pages_) {  // shrink_cache: drop the oldest clean page
    const uint64_t victim = lru_.front();
    lru_.pop_front();
    if (pages_[victim] == PageState::Locked) {
      lru_.push_back(victim);
      break;
    }
    pages_[victim] = PageState::Absent;
    stats_.evictions++;
  }
}

void BlockLayer::submit_pages(uint64_t first, uint64_t count) {
  // mpage_readpages: add each missing page to the cache, then bios of up to
  // the queue's max_sectors (bio_add_page refuses beyond it).
  uint64_t run_start = first, run_len = 0;
  auto flush = [&] {
    while (run_len) {
      const uint32_t n = std::min<uint32_t>(uint32_t(run_len), max_sectors_ / 8);
      make_request(run_start, n);
      run_start += n;
      run_len -= n;
    }
  };
  for (uint64_t i = first; i < first + count; ++i) {
    if (pages_[i] != PageState::Absent) {
      flush();
      run_start = i + 1;
      continue;
    }
    add_to_page_cache(i);
    if (!run_len) run_start = i;
    run_len++;
  }
  flush();
}

void BlockLayer::page_cache_readahead(uint64_t index) {
  if (index == 0) ra_next_ = 0;  // the reader started over (cat again)
  if (ra_pages_ == 0 || index + ra_pages_ <= ra_next_ || ra_next_ >= pages_.size()) return;
  // Keep one window of read_ahead_kb in flight ahead of the reader.
  const uint64_t start = std::max(ra_next_, index);
  const uint64_t count = std::min<uint64_t>(ra_pages_, pages_.size() - start);
  k_.fn("page_cache_readahead", "do_generic_mapping_read", 120, 1);
  k_.fn("do_page_cache_readahead", "page_cache_readahead", 80, 1);
  submit_pages(start, count);
  ra_next_ = start + count;
  generic_unplug_device();
}

void BlockLayer::wait_on_page_locked(uint64_t index) {
  while (pages_[index] == PageState::Locked) {
    waiters_[index].push_back(&k_.current());
    k_.set_current_state(TASK_UNINTERRUPTIBLE);
    k_.fn("io_schedule", "__wait_on_bit", 30);
    k_.schedule("io_schedule");
  }
}

void BlockLayer::unlock_page(uint64_t index) {
  pages_[index] = PageState::Uptodate;
  k_.fn("unlock_page", "mpage_end_io_read", 30, 1);
  auto it = waiters_.find(index);
  if (it == waiters_.end()) return;
  auto waiters = std::move(it->second);
  waiters_.erase(it);
  k_.fn("__wake_up_common", "unlock_page", 40, 1);
  for (Task* t : waiters) k_.try_to_wake_up(t, "__wake_up_common");
}

void BlockLayer::read_page(uint64_t index, const char* parent) {
  k_.fn("find_get_page", parent, 60, 1);
  page_cache_readahead(index);
  if (pages_[index] == PageState::Absent) {  // no read-ahead: read this page alone
    submit_pages(index, 1);
    generic_unplug_device();
  }
  wait_on_page_locked(index);
  k_.fn("file_read_actor", parent, 40);
  k_.might_sleep("__copy_to_user_ll");
  // 4 KiB copied with rep movsl; the source lines were just written by DMA.
  k_.fn("__copy_to_user_ll", "file_read_actor", 1100, 4, 128);
  k_.fn("mark_page_accessed", parent, 30, 1);
  stats_.pages_read++;
}

}  // namespace latsim::kernel
