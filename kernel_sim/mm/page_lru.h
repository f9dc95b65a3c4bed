#pragma once
// The zone's page-cache LRU (mm/swap.c, mm/vmscan.c in 2.6.9): a new page goes on the
// inactive list (lru_cache_add); mark_page_accessed sets PG_referenced on its first use
// and moves a referenced inactive page to the active list on the next; reclaim frees
// pages from the inactive list's cold end (shrink_list: an unmapped page-cache page
// goes whatever its referenced bit) and, as shrink_zone scans both lists in proportion
// to their sizes, refill_inactive_zone moves as many active pages, in proportion, back
// to the inactive list (unmapped ones unconditionally). So a header every compiler reads
// stays cached while a streaming reader's pages, each read once, pass through.
// Policy Fifo is one list, oldest first: the counterfactual without the active list.
#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <utility>

namespace latsim::kernel {

struct PageLruStats {
  uint64_t activations = 0;    // inactive -> active (the second mark_page_accessed)
  uint64_t deactivations = 0;  // active -> inactive (refill_inactive_zone)
};

class PageLru {
 public:
  enum class Policy { ActiveInactive, Fifo };
  explicit PageLru(Policy p) : policy_(p) {}

  void add(uint64_t key);            // lru_cache_add: the inactive list's hot end
  void mark_accessed(uint64_t key);  // mark_page_accessed
  // Reclaim until at most `capacity` pages remain. `evict(key)` frees a page, or
  // returns false for one that cannot go yet (under I/O, dirty): it goes back on the list,
  // and after SWAP_CLUSTER_MAX such pages this call gives up (the cache stays over size).
  void shrink(uint64_t capacity, const std::function<bool(uint64_t)>& evict);

  uint64_t size() const { return nr_active_ + nr_inactive_; }
  uint64_t nr_active() const { return nr_active_; }
  uint64_t nr_inactive() const { return nr_inactive_; }
  const PageLruStats& stats() const { return stats_; }

 private:
  static constexpr uint64_t kSwapClusterMax = 32;  // include/linux/swap.h
  struct Page {
    uint64_t gen = 0;  // matches the one live list entry; older entries are stale
    bool active = false, referenced = false;
  };
  using Entry = std::pair<uint64_t, uint64_t>;  // key, gen
  void push(uint64_t key, Page& pg, bool active);
  bool pop_cold(std::deque<Entry>& list, bool active, uint64_t& key);

  Policy policy_;
  std::unordered_map<uint64_t, Page> pages_;
  std::deque<Entry> inactive_, active_;  // cold end first
  uint64_t nr_active_ = 0, nr_inactive_ = 0, next_gen_ = 1;
  double scan_active_ = 0;  // active pages owed to the inactive list
  PageLruStats stats_;
};

}  // namespace latsim::kernel
