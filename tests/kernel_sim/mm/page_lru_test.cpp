// mm/swap.c + mm/vmscan.c reclaim order: pages read twice survive a stream of pages
// read once; with the fifo policy they do not.
#include "kernel_sim/mm/page_lru.h"
#include <gtest/gtest.h>
#include <set>
#include <vector>

namespace latsim::kernel {
namespace {

// Ten "headers" (keys 0..9) read twice, then a stream of `stream` pages (keys 100..)
// read once through a cache of 100 pages: which headers are still cached at the end.
std::set<uint64_t> headers_left(PageLru::Policy policy, uint64_t stream, PageLruStats* stats) {
  PageLru lru(policy);
  std::set<uint64_t> cached;
  auto evict = [&](uint64_t k) { return cached.erase(k) == 1; };
  auto read = [&](uint64_t k) {
    if (!cached.count(k)) {
      cached.insert(k);
      lru.add(k);
      lru.shrink(100, evict);
    }
    lru.mark_accessed(k);
  };
  for (int pass = 0; pass < 2; ++pass)
    for (uint64_t h = 0; h < 10; ++h) read(h);
  for (uint64_t p = 100; p < 100 + stream; ++p) read(p);
  EXPECT_EQ(lru.size(), 100u);
  EXPECT_EQ(cached.size(), 100u);
  *stats = lru.stats();
  std::set<uint64_t> left;
  for (uint64_t h = 0; h < 10; ++h)
    if (cached.count(h)) left.insert(h);
  return left;
}

// The second read activates each header; the stream's pages, each read once, stay
// inactive and are reclaimed oldest first. After 110 pages freed the fifo has lost every
// header; the active list has handed back one header per ~(inactive / active) pages
// freed, and a handed-back header still waits behind ~90 stream pages.
TEST(PageLru, PagesReadTwiceOutliveAStreamReadOnce) {
  PageLruStats st;
  const auto kept = headers_left(PageLru::Policy::ActiveInactive, 200, &st);
  EXPECT_EQ(st.activations, 10u);
  EXPECT_GE(kept.size(), 5u);
  EXPECT_EQ(kept.count(9), 1u);  // deactivated last: the active list is FIFO too
  EXPECT_TRUE(headers_left(PageLru::Policy::Fifo, 200, &st).empty());
  EXPECT_EQ(st.activations, 0u);
}

// refill_inactive_zone moves unmapped pages back unconditionally: a header nobody reads
// again goes in the end (after 1000 pages every one has been handed back and freed).
TEST(PageLru, AnActivePageNotReadAgainIsReclaimedInTheEnd) {
  PageLruStats st;
  EXPECT_TRUE(headers_left(PageLru::Policy::ActiveInactive, 1000, &st).empty());
  EXPECT_EQ(st.deactivations, 10u);
}

// A shorter stream (50 pages over a cache of 100 with 10 active headers): the headers
// are never reclaimed; with fifo the oldest (the headers, read first) go first.
TEST(PageLru, ActiveHeadersSurviveAShortStream) {
  for (auto policy : {PageLru::Policy::ActiveInactive, PageLru::Policy::Fifo}) {
    PageLru lru(policy);
    std::set<uint64_t> cached;
    auto evict = [&](uint64_t k) { return cached.erase(k) == 1; };
    auto read = [&](uint64_t k) {
      if (!cached.count(k)) cached.insert(k), lru.add(k), lru.shrink(60, evict);
      lru.mark_accessed(k);
    };
    for (int pass = 0; pass < 2; ++pass)
      for (uint64_t h = 0; h < 10; ++h) read(h);
    for (uint64_t p = 100; p < 160; ++p) read(p);
    int headers = 0;
    for (uint64_t h = 0; h < 10; ++h) headers += int(cached.count(h));
    if (policy == PageLru::Policy::ActiveInactive)
      EXPECT_EQ(headers, 10);
    else
      EXPECT_EQ(headers, 0);
  }
}

// A page that cannot be freed (under I/O, dirty) goes back on the list and reclaim goes
// on with the next; after 32 such pages in one call it gives up over size.
TEST(PageLru, APageThatCannotGoIsKeptAndReclaimGoesOn) {
  PageLru lru(PageLru::Policy::ActiveInactive);
  for (uint64_t k = 0; k < 5; ++k) lru.add(k);
  std::vector<uint64_t> freed;
  lru.shrink(2, [&](uint64_t k) {
    if (k == 1) return false;
    freed.push_back(k);
    return true;
  });
  EXPECT_EQ(freed, std::vector<uint64_t>({0, 2, 3}));
  EXPECT_EQ(lru.size(), 2u);
  PageLru all_dirty(PageLru::Policy::ActiveInactive);
  for (uint64_t k = 0; k < 100; ++k) all_dirty.add(k);
  all_dirty.shrink(10, [](uint64_t) { return false; });
  EXPECT_EQ(all_dirty.size(), 100u);
}

}  // namespace
}  // namespace latsim::kernel
