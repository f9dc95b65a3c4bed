#pragma once
// The read and write paths of files on hda: page cache with read-ahead (mm/filemap.c,
// mm/readahead.c), the request queue limited by max_sectors_kb (drivers/block/
// ll_rw_blk.c) and the IDE driver with bus-master DMA (drivers/ide/ide-io.c,
// ide-dma.c). Costs are per page, per request, per port access.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <vector>
#include "common/random.h"
#include "kernel_sim/locks/spinlock.h"
#include "kernel_sim/mm/page_lru.h"
#include "kernel_sim/sched/workqueue.h"
#include "kernel_sim/trace/blame.h"

namespace latsim::kernel {

class Kernel;
struct Task;

// A file on hda: index into the block layer's file table.
using FileId = uint32_t;
// The files of the original one-file API: setup_file/read_page(index) read kReadFile,
// setup_write_file/write_page(index)/write_sync write kWriteFile.
constexpr FileId kReadFile = 0, kWriteFile = 1;

struct BlockStats {
  uint64_t requests = 0, bios = 0, merges = 0, pages_read = 0, ios_completed = 0;
  uint64_t max_request_sectors = 0;
  uint64_t evictions = 0;
  uint64_t pages_written = 0, pages_dirtied = 0, write_requests = 0, throttled = 0;
  uint64_t max_dirty = 0;
  uint64_t read_requests = 0, pages_submitted = 0;  // READ requests; pages submitted for them
  uint64_t pages_from_disk = 0;                     // pages their completions brought in
  // kernel.plugging timer: plugs, and which unplug ran the plugged queue
  uint64_t plugs = 0, unplugs_thresh = 0, unplugs_wait = 0, unplugs_timer = 0;
};

class BlockLayer {
 public:
  explicit BlockLayer(Kernel& k);
  // Open the one file the workloads read: `pages` pages starting at `start_lba`.
  void setup_file(uint64_t pages, uint64_t start_lba);
  uint64_t file_pages() const { return files_[kReadFile].pages.size(); }
  uint64_t file_pages(FileId f) const { return files_[f].pages.size(); }
  // The request the IDE channel is moving (nullptr: idle), as the blame ledger names it.
  const BlameRequest* active_request() const { return busy_ ? &active_blame_ : nullptr; }
  // do_generic_mapping_read for one page: read-ahead, wait for I/O, copy to user.
  void read_page(uint64_t index, const char* parent) { read_page(kReadFile, index, parent); }
  void read_page(FileId f, uint64_t index, const char* parent);
  // filemap_nopage: the page is found (or read) and mapped, not copied; the caller's
  // user code then touches it.
  void fault_page(FileId f, uint64_t index);
  // Another file: `pages` pages at `start_lba`, with its own page-cache state and
  // read-ahead window (its struct file's file_ra_state).
  FileId create_file(uint64_t pages, uint64_t start_lba);
  size_t files() const { return files_.size(); }
  // The file is in the page cache at boot (read before the run began): no I/O, no cost.
  void prefill(FileId f);
  bool cached(FileId f, uint64_t index) const {
    return files_[f].pages[index] == PageState::Uptodate;
  }
  // The read-ahead state of a file (mm/readahead.c struct file_ra_state).
  struct RaState {
    uint64_t start = 0, size = 0;              // the current window
    uint64_t ahead_start = 0, ahead_size = 0;  // the ahead window (size 0: none)
    uint64_t prev_page = ~0ull;                // the last page read (sequential detection)
    bool open = false;                         // a current window exists
  };
  const RaState& ra_state(FileId f) const { return files_[f].ra; }
  void init_ide();  // request_irq(14, "ide0") etc.
  // The disk is sda behind an AIC-7880 (platform.disk.adapter aic7xxx): the aic7xxx
  // driver's attach (request_irq, the SCB array and QIN/QOUT FIFOs) and the SCSI
  // bottom half. The queue's request_fn is then scsi_request_fn.
  void init_scsi();
  size_t scsi_outstanding() const { return scsi_cmds_.size(); }  // commands at the adapter

  // The write side (mm/filemap.c generic_file_write, mm/page-writeback.c, pdflush):
  // a second file whose pages are dirtied by write(2) and written back by WRITE DMA.
  void setup_write_file(uint64_t pages, uint64_t start_lba);
  uint64_t write_file_pages() const { return files_[kWriteFile].w.size(); }
  // generic_file_write of one page: allocate, copy from user, dirty, throttle.
  void write_page(uint64_t index, const char* parent) { write_page(kWriteFile, index, parent); }
  void write_page(FileId f, uint64_t index, const char* parent);
  uint64_t nr_dirty() const { return nr_dirty_; }
  uint64_t nr_writeback() const { return nr_writeback_; }
  // ll_rw_block(WRITE) of `npages` pages from `first_page` of a file (the write file by
  // default), then wait_on_buffer until each is written (a journal's log blocks).
  void write_sync(uint64_t first_page, uint32_t npages, const char* parent) {
    write_sync(kWriteFile, first_page, npages, parent);
  }
  void write_sync(FileId f, uint64_t first_page, uint32_t npages, const char* parent);
  // pdflush, started by setup_write_file or by a workload that writes other files.
  void start_pdflush();
  // ext3 data=ordered (fs/ext3.h): pages dirtied by write(2) join the running
  // transaction, and each commit first writes them and waits
  // (journal_submit_data_buffers, journal_wait_on_data).
  void set_data_ordered() { data_ordered_ = true; }
  bool transaction_has_data() const { return !transaction_.empty(); }
  void journal_submit_data_buffers();
  const BlockStats& stats() const { return stats_; }
  const PageLru& lru() const { return lru_; }
  const Spinlock& ide_lock() const { return ide_lock_; }

 private:
  // find_get_page, read-ahead and the wait for the page to come in.
  void find_page(FileId f, uint64_t index, const char* parent);
  enum class PageState : uint8_t { Absent, Locked, Uptodate };
  enum class WState : uint8_t { Clean, Dirty, Writeback };
  struct PageRef {
    FileId file = 0;
    uint64_t index = 0;
  };
  struct Request {
    uint64_t sector = 0;
    uint32_t nr_sectors = 0;
    std::vector<PageRef> pages;
    bool write = false;
    uint64_t queued = 0;  // jiffies when it was queued (the elevator's fifo time)
    int pid = -1;         // the task that submitted it (a merge keeps the first)
    std::string comm;
  };
  struct File {
    uint64_t start_lba = 0;
    std::vector<PageState> pages;  // the read side: page cache state
    std::vector<uint64_t> frames;  // physical frame of each cached page
    RaState ra;
    std::vector<WState> w;          // the write side
    std::vector<uint64_t> wframes;  // frame of each written page
    uint64_t wb_next = 0;           // next page mpage_writepages looks at
    uint64_t ndirty = 0;            // its dirty pages
    bool on_dirty_list = false;     // on sb->s_dirty
    bool in_transaction = false;    // has data pages in the journal's running transaction
  };
  static uint64_t key(PageRef p) { return (uint64_t(p.file) << 40) | p.index; }
  static PageRef page_of(uint64_t key) { return {FileId(key >> 40), key & ((1ull << 40) - 1)}; }

  // mm/readahead.c
  void page_cache_readahead(FileId f, uint64_t index);
  void submit_pages(FileId f, uint64_t first, uint64_t count);
  void add_to_page_cache(PageRef p);
  void lru_cache_add(PageRef p);
  static void init_file(File& f, uint64_t pages, uint64_t start_lba);
  void wait_on_page_locked(PageRef p);
  void unlock_page(PageRef p);
  // ll_rw_blk.c
  void make_request(FileId f, uint64_t first_page, uint32_t npages);
  // `cause`: the BlockStats counter of a plug this call removes (timer plugging)
  void generic_unplug_device(const char* parent = "blk_run_backing_dev", uint64_t* cause = nullptr);
  // blk_plug.cpp: 2.6.9's plugging (kernel.plugging timer); with inline, none of it runs.
  bool plugging_timer() const;
  // __make_request with ide_lock held: an empty queue (elv_queue_empty) is plugged.
  bool plug_if_empty();
  void blk_plug_device();
  bool blk_remove_plug();
  void unplug_device_locked(const char* parent, uint64_t* cause);  // __generic_unplug_device
  void elv_added_request(const Request& rq);  // __elv_add_request after the elevator's add
  void blk_unplug_timeout();
  void unplug_after_submit();  // inline: run the queue after submitting; timer: nothing
  // timer: a task about to wait on I/O runs the queue (`via`: block_sync_page, sync_buffer)
  void sync_page(const char* via, const char* parent);
  void blk_dev_init();
  // q->request_fn from `caller`, with the queue lock held and interrupts off: IDE's
  // do_ide_request (`via_request_fn`; else ide_do_request directly), or scsi_request_fn.
  void do_request(const char* caller, bool via_request_fn = true);
  // ide
  void ide_do_request(const char* parent);
  // as-iosched.c: the index in queue_ of the request to start, or -1 while it waits
  // for the last reader's next read (noop: the oldest).
  int elv_next_request();
  void as_completed_request(const Request& rq);
  void as_antic_timeout(uint64_t gen);
  void as_work_handler();
  void as_antic_stop(const Request& rq);  // a read arrived during the anticipation
  // ll_rw_blk.c's kblockd workqueue: one worker_thread per CPU (nice -10). A work item
  // already pending is not queued again (queue_work's test_and_set_bit of work->pending).
  void kblockd_schedule_work(bool* pending, std::function<void()> work, const char* parent);
  void start_request(const Request& rq);
  void ide_intr();
  void start_pio(const Request& rq);
  void ide_pio_intr(bool flags);
  void ide_end_request(const Request& rq);
  std::vector<std::pair<uint64_t, uint32_t>> blk_rq_map_sg(const Request& rq) const;
  void end_that_request_first(const Request& rq, const char* parent);
  void request_freed();  // a request left the driver: wake blk_congestion_wait
  // drivers/scsi (2.4): the mid-layer (scsi_lib.c, scsi.c) and aic7xxx (aic7xxx_linux.c)
  void scsi_request_fn(const char* parent);
  void scsi_init_io(uint8_t tag, const Request& rq);  // the command's SG list
  void scsi_dispatch_cmd(uint8_t tag);
  void ahc_linux_queue(uint8_t tag);
  void ahc_linux_isr();
  void scsi_done(uint8_t tag);
  void scsi_bottom_half_handler();
  void scsi_io_completion(uint8_t tag);
  uint64_t frame_of(PageRef p) const;
  // page-writeback.c
  void balance_dirty_pages();
  uint64_t writeback_pages(uint64_t max_pages, const char* parent);           // writeback_inodes
  uint64_t writeback_file(FileId f, uint64_t max_pages, const char* parent);  // mpage_writepages
  void off_dirty_list(FileId f);  // the file has no dirty pages left
  void make_write_request(FileId f, uint64_t first_page, uint32_t npages);
  void end_page_writeback(PageRef p);
  void blk_congestion_wait();
  void pdflush();

  Kernel& k_;
  Rng rng_;
  std::deque<File> files_;  // a deque: a sleeping writer's File& survives create_file
  PageLru lru_;             // the cached pages of every file, in reclaim order
  std::map<uint64_t, std::vector<Task*>> waiters_;
  uint64_t capacity_pages_;
  uint32_t max_sectors_;  // queue limit from max_sectors_kb
  uint64_t ra_pages_;
  Spinlock ide_lock_;
  std::deque<Request> queue_;
  bool busy_ = false;  // hwgroup->busy
  Request active_;
  BlameRequest active_blame_;  // active_ as the blame ledger names it (seq 0: idle)
  uint32_t pio_left_ = 0;      // sectors of the PIO request still to read
  static constexpr uint64_t kPrdTable = 0x00100000;  // pci_alloc_consistent page
  // aic7xxx: SCBs (64 bytes each), QOUTFIFO + QINFIFO, and one SG list per tag
  // (256 segments of 8 bytes), each in pci_alloc_consistent memory.
  static constexpr uint64_t kScbArray = 0x00102000, kSharedData = 0x00106000;
  static constexpr uint64_t kSgLists = 0x00108000;
  std::map<uint8_t, Request> scsi_cmds_;  // tag -> request queued at the adapter
  std::deque<uint8_t> scsi_bh_queue_;     // scsi_done'd commands for the SCSI bottom half
  uint8_t qinfifonext_ = 0, qoutfifonext_ = 0;
  Spinlock ahc_lock_{"ahc_lock"};                    // ahc->platform_data->spin_lock
  Spinlock scsi_bhqueue_lock_{"scsi_bhqueue_lock"};  // scsi.c
  BlockStats stats_;
  // write side
  std::deque<FileId> dirty_files_;   // sb->s_dirty: files with dirty pages, first dirtied first
  std::vector<FileId> transaction_;  // files dirtied since the journal's last commit
  uint64_t nr_dirty_ = 0, nr_writeback_ = 0;
  Task* pdflush_ = nullptr;
  bool data_ordered_ = false;  // an ext3 data=ordered journal commits the dirty pages
  bool pdflush_running_ = false;
  std::vector<Task*> congestion_waiters_;
  size_t nr_requests_ = 128;            // /sys/block/hda/queue/nr_requests (2.6.9 default)
  std::unique_ptr<Workqueue> kblockd_;  // kblockd/N
  bool antic_work_pending_ = false, unplug_work_pending_ = false;  // work_struct's pending bit
  // The queue's plug (QUEUE_FLAG_PLUGGED) and its unplug_timer, on the plugging CPU's base.
  bool plugged_ = false;
  uint64_t unplug_timer_ = 0;
  int unplug_timer_cpu_ = 0;
  // as_data: the batch being served and the anticipation of the last reader.
  struct AsData {
    bool write_batch = false;
    int64_t batch_start = 0;     // jiffies
    int64_t last_read_done = 0;  // jiffies the last read completed
    uint64_t antic_gen = 0;      // antic_timer generation (a stale timeout is ignored)
    bool antic_armed = false;
    bool reader_may_send = false;  // a read completed and its wait has not timed out
  } as_;
};

}  // namespace latsim::kernel
