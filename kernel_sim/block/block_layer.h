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
  uint64_t pages_written = 0, pages_dirtied = 0, write_requests = 0, throttled = 0;
  uint64_t max_dirty = 0;
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

  // The write side (mm/filemap.c generic_file_write, mm/page-writeback.c, pdflush):
  // a second file whose pages are dirtied by write(2) and written back by WRITE DMA.
  void setup_write_file(uint64_t pages, uint64_t start_lba);
  uint64_t write_file_pages() const { return wpages_.size(); }
  // generic_file_write of one page: allocate, copy from user, dirty, throttle.
  void write_page(uint64_t index, const char* parent);
  uint64_t nr_dirty() const { return nr_dirty_; }
  // ll_rw_block(WRITE) of `npages` pages from `first_page` of the write file, then
  // wait_on_buffer until each is written (a journal's log blocks).
  void write_sync(uint64_t first_page, uint32_t npages, const char* parent);
  const BlockStats& stats() const { return stats_; }
  const Spinlock& ide_lock() const { return ide_lock_; }

 private:
  enum class PageState : uint8_t { Absent, Locked, Uptodate };
  struct Request {
    uint64_t sector = 0;
    uint32_t nr_sectors = 0;
    std::vector<uint64_t> pages;
    bool write = false;  // pages index the write file
  };
  enum class WState : uint8_t { Clean, Dirty, Writeback };

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
  void start_pio(const Request& rq);
  void ide_pio_intr(bool flags);
  void ide_end_request(const Request& rq);
  uint64_t frame_of(uint64_t index);
  // page-writeback.c
  void balance_dirty_pages();
  uint64_t writeback_pages(uint64_t max_pages, const char* parent);  // mpage_writepages
  void make_write_request(uint64_t first_page, uint32_t npages);
  void end_page_writeback(uint64_t index);
  void blk_congestion_wait();
  void pdflush();

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
  uint32_t pio_left_ = 0;                            // sectors of the PIO request still to read
  static constexpr uint64_t kPrdTable = 0x00100000;  // pci_alloc_consistent page
  BlockStats stats_;
  // write side
  std::vector<WState> wpages_;
  std::vector<uint64_t> wframes_;
  uint64_t wstart_lba_ = 0, wb_next_ = 0;  // next page pdflush looks at
  uint64_t nr_dirty_ = 0, nr_writeback_ = 0;
  Task* pdflush_ = nullptr;
  bool pdflush_running_ = false;
  std::vector<Task*> congestion_waiters_;
  size_t nr_requests_ = 128;  // /sys/block/hda/queue/nr_requests (2.6.9 default)
};

}  // namespace latsim::kernel
