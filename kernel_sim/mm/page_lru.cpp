#include "kernel_sim/mm/page_lru.h"

namespace latsim::kernel {

void PageLru::push(uint64_t key, Page& pg, bool active) {
  pg.gen = next_gen_++;
  pg.active = active;
  (active ? active_ : inactive_).push_back({key, pg.gen});
  (active ? nr_active_ : nr_inactive_)++;
}

void PageLru::add(uint64_t key) {
  Page& pg = pages_[key];
  if (pg.gen) return;  // already on a list
  push(key, pg, false);
}

void PageLru::mark_accessed(uint64_t key) {
  if (policy_ == Policy::Fifo) return;
  auto it = pages_.find(key);
  if (it == pages_.end()) return;
  Page& pg = it->second;
  if (!pg.active && pg.referenced) {  // activate_page
    nr_inactive_--;
    pg.referenced = false;
    push(key, pg, true);
    stats_.activations++;
  } else if (!pg.referenced) {
    pg.referenced = true;
  }
}

// The list's cold-end page still on it, or false when the list is empty. A page moved
// since its entry was queued (activated, deactivated, freed) left a stale entry behind.
bool PageLru::pop_cold(std::deque<Entry>& list, bool active, uint64_t& key) {
  while (!list.empty()) {
    const Entry e = list.front();
    list.pop_front();
    auto it = pages_.find(e.first);
    if (it == pages_.end() || it->second.gen != e.second || it->second.active != active) continue;
    key = e.first;
    return true;
  }
  return false;
}

void PageLru::shrink(uint64_t capacity, const std::function<bool(uint64_t)>& evict) {
  uint64_t kept = 0;  // pages put back in this call
  while (size() > capacity && kept < kSwapClusterMax) {
    // refill_inactive_zone: active pages scanned in proportion to the inactive ones freed.
    if (policy_ == Policy::ActiveInactive) {
      scan_active_ += nr_inactive_ ? double(nr_active_) / double(nr_inactive_) : 1.0;
      uint64_t key = 0;
      while (scan_active_ >= 1.0 && pop_cold(active_, true, key)) {
        scan_active_ -= 1.0;
        nr_active_--;
        push(key, pages_[key], false);
        stats_.deactivations++;
      }
      if (nr_active_ == 0) scan_active_ = 0;
    }
    uint64_t key = 0;
    if (!pop_cold(inactive_, false, key)) return;
    nr_inactive_--;
    if (!evict(key)) {  // under I/O or dirty: back on the list (shrink_list's keep)
      push(key, pages_[key], false);
      kept++;
      continue;
    }
    pages_.erase(key);
  }
}

}  // namespace latsim::kernel
