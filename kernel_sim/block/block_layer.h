#pragma once
// The read path of one file on hda: page cache with read-ahead (mm/filemap.c,
// mm/readahead.c), the request queue limited by max_sectors_kb (drivers/block/
// ll_rw_blk.c) and the IDE driver with bus-master DMA (drivers/ide/ide-io.c,
// ide-dma.c). Costs are per page, per request, per port access.
#include <cstdint>
#include <deque>
#include <map>
#include <vector>
#include "kernel_sim/lib/random.h"
#include "kernel_sim/locks/spinlock.h"

namespace latsim::kernel {

class Kernel;
struct Task;

struct BlockStats {
  uint64_t requests = 0, bios = 0, merges = 0, pages_read = 0, ios_completed = 0;
  uint64_t max_request_sectors = 0;
  uint64_t evictions = 0;
};

class BlockLayer {
 public:
  explicit BlockLayer(Kernel& k);
  // Open the one file the workloads read: `pages` pages starting at `start_lba`.
  void setup_file(uint64_t pages, uint64_t start_lba);
  uint64_t file_pages() const { return pages_.size(); }
  // do_generic_mapping_read for one page: read-ahead, wait for I/O, copy to user.
  void read_page(uint64_t index, const char* parent);
  void init_ide();  // request_irq(14, "ide0") etc.
  const BlockStats& stats() const { return stats_; }
  const Spinlock& ide_lock() const { return ide_lock_; }

 private:
  enum class PageState : uint8_t { Absent, Locked, Uptodate };
  struct Request {
    uint64_t sector = 0;
    uint32_t nr_sectors = 0;
    std::vector<uint64_t> pages;
  };

  // mm/readahead.c
  void page_cache_readahead(uint64_t index);
  void submit_pages(uint64_t first, uint64_t count);
  void add_to_page_cache(uint64_t index);
  void wait_on_page_locked(uint64_t index);
  void unlock_page(uint64_t index);
  // ll_rw_blk.c
  void make_request(uint64_t first_page, uint32_t npages);
  void generic_unplug_device();
  // ide
  void ide_do_request(const char* parent);
  void start_request(const Request& rq);
  void ide_intr();
  void ide_end_request(const Request& rq);
  uint64_t frame_of(uint64_t index);

  Kernel& k_;
  Rng rng_;
  std::vector<PageState> pages_;
  std::vector<uint64_t> frames_;  // physical frame of each cached page
  std::deque<uint64_t> lru_;      // cached pages, oldest first
  std::map<uint64_t, std::vector<Task*>> waiters_;
  uint64_t capacity_pages_;
  uint64_t start_lba_ = 0;
  uint64_t ra_next_ = 0;  // first page not yet submitted for read-ahead
  uint32_t max_sectors_;  // queue limit from max_sectors_kb
  uint64_t ra_pages_;
  Spinlock ide_lock_{"ide_lock"};
  std::deque<Request> queue_;
  bool busy_ = false;  // hwgroup->busy
  Request active_;
  static constexpr uint64_t kPrdTable = 0x00100000;  // pci_alloc_consistent page
  BlockStats stats_;
};

}  // namespace latsim::kernel
