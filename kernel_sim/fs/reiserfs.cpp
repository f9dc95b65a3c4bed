#include "kernel_sim/fs/reiserfs.h"
#include <algorithm>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
constexpr uint64_t kPartitionLba = 4000000;  // assumption: the ReiserFS partition's start
}

params::Table<ReiserFsParams> reiserfs_keys() {
  using namespace params;
  using P = ReiserFsParams;
  return {
      bind<P>(with_source(integer("kupdate_interval_s", 1, 600, "s",
                                  "kupdated period (bdflush interval): sync_old_buffers, which "
                                  "commits the ReiserFS transaction"),
                          "2.4 fs/buffer.c bdflush_param: interval 5*HZ"),
              &P::kupdate_interval_s),
      bind<P>(with_source(integer("journal_max_batch", 1, 1024, "blocks",
                                  "JOURNAL_MAX_BATCH: a running transaction commits when it logs "
                                  "this many"),
                          "include/linux/reiserfs_fs.h JOURNAL_MAX_BATCH"),
              &P::journal_max_batch),
  };
}

ReiserFs::ReiserFs(Kernel& k, const ReiserFsParams& p) : k_(k), p_(p) {}

void ReiserFs::mount() {
  k_.block().setup_write_file(p_.journal_blocks + p_.data_pages, kPartitionLba);
  k_.create_task(
      "kupdated", [this] { kupdate(); }, Policy::Normal, 0);
}

// search_by_key: a root-to-leaf walk of the S+tree, a binary search per node (height 4).
void ReiserFs::search_by_key(const char* parent) {
  k_.fn("search_by_key", parent, 400, 4);
  for (int level = 0; level < 4; ++level) k_.fn("bin_search", "search_by_key", 150, 0, 1);
}

void ReiserFs::journal_begin(const char* parent) {
  k_.fn("journal_begin", parent, 120, 2);
  if (j_locked_) {  // do_journal_begin_r: the transaction is committing, sleep until it ends
    s_.join_waits++;
    k_.wait_event(
        j_join_wait_, [this] { return !j_locked_; }, "do_journal_begin_r");
  }
}

// journal_mark_dirty: a block already in the running transaction is found in the
// journal's hash and costs nothing more; a new one joins the transaction.
void ReiserFs::journal_mark_dirty(uint64_t block, const char* parent) {
  k_.fn("journal_mark_dirty", parent, 150, 2);
  if (j_blocks_.insert(block).second) j_len_++;
}

void ReiserFs::journal_end(const char* parent) {
  k_.fn("journal_end", parent, 100, 1);
  if (j_len_ >= p_.journal_max_batch && !j_locked_) do_journal_end("journal_end");
}

// do_journal_end: copy every logged block into a log buffer, write the descriptor,
// the copies and the commit block, wait for them, then let the joiners in.
void ReiserFs::do_journal_end(const char* parent) {
  k_.fn("do_journal_end", parent, 400, 4);
  j_locked_ = true;
  const uint32_t n = j_len_;
  j_len_ = 0;
  j_blocks_.clear();
  for (uint32_t i = 0; i < n; ++i)  // memcpy(tmp_bh->b_data, cn->bh->b_data, 4096)
    if (!k_.mmx_memcpy(4096, "do_journal_end"))
      k_.fn("journal_getblk", "do_journal_end", 1100, 1, 128);
  if (log_head_ + n + 2 > p_.journal_blocks) log_head_ = 0;       // the log wraps
  k_.block().write_sync(log_head_, n + 1, "do_journal_end");      // descriptor + blocks
  k_.block().write_sync(log_head_ + n + 1, 1, "do_journal_end");  // commit block
  log_head_ += n + 2;
  s_.commits++;
  LATSIM_DEBUG(fs, k_.log_who(), "reiserfs commit: {} blocks", n);
  s_.committed_blocks += n;
  s_.max_commit_blocks = std::max<uint64_t>(s_.max_commit_blocks, n);
  j_locked_ = false;
  k_.wake_up(j_join_wait_, "do_journal_end");
}

void ReiserFs::create(File f, const char* parent) {
  k_.fn("vfs_create", parent, 200, 3);
  k_.lock_kernel("vfs_create");
  journal_begin("reiserfs_create");
  search_by_key("reiserfs_new_inode");
  k_.fn("reiserfs_insert_item", "reiserfs_new_inode", 900, 8, 8);  // stat data
  search_by_key("reiserfs_add_entry");
  k_.fn("reiserfs_paste_into_item", "reiserfs_add_entry", 700, 6, 4);  // the name
  journal_mark_dirty(sd_leaf(f), "reiserfs_create");
  journal_mark_dirty(dir_leaf(f), "reiserfs_create");
  journal_mark_dirty(dir_sd(f), "reiserfs_create");
  journal_end("reiserfs_create");
  k_.unlock_kernel({"vfs_create", "unlock_kernel"});
  s_.creates++;
}

void ReiserFs::dirty_inode(File f) { dirty_inodes_.insert({f.dir, f.nr}); }

void ReiserFs::get_block(File f, uint64_t page, const char* parent) {
  k_.lock_kernel("reiserfs_get_block");
  k_.fn("reiserfs_get_block", parent, 200, 3);
  journal_begin("reiserfs_get_block");
  search_by_key("reiserfs_get_block");
  k_.fn("reiserfs_new_blocknrs", "reiserfs_get_block", 800, 4, 1);     // scan the bitmap
  k_.fn("reiserfs_paste_into_item", "reiserfs_get_block", 500, 4, 1);  // one pointer
  journal_mark_dirty(bitmap_of(page), "reiserfs_get_block");
  journal_mark_dirty(sd_leaf(f), "reiserfs_get_block");  // the indirect item
  journal_end("reiserfs_get_block");
  k_.unlock_kernel({"reiserfs_get_block", "unlock_kernel"});
  s_.blocks_allocated++;
}

void ReiserFs::lookup(const char* parent) {
  k_.fn("path_walk", parent, 600, 6);
  k_.fn("d_lookup", "link_path_walk", 250, 2);  // dbench's names stay in the dcache
}

void ReiserFs::unlink(File f, uint64_t first_page, uint64_t pages, const char* parent) {
  k_.fn("vfs_unlink", parent, 200, 3);
  k_.lock_kernel("vfs_unlink");
  journal_begin("reiserfs_unlink");
  search_by_key("reiserfs_unlink");
  k_.fn("reiserfs_cut_from_item", "reiserfs_unlink", 700, 6, 4);
  journal_mark_dirty(dir_leaf(f), "reiserfs_unlink");
  journal_mark_dirty(dir_sd(f), "reiserfs_unlink");
  journal_end("reiserfs_unlink");
  k_.unlock_kernel({"vfs_unlink", "unlock_kernel"});
  s_.unlinks++;
  dirty_inodes_.erase({f.dir, f.nr});
  delete_inode(f, first_page, pages);  // iput of the last link
}

// reiserfs_delete_inode: lock_kernel, truncate to 0 (free every block: a bitmap bit
// and the item's pointer each), remove the stat data, unlock_kernel.
void ReiserFs::delete_inode(File f, uint64_t first_page, uint64_t file_blocks) {
  k_.lock_kernel("reiserfs_delete_inode");
  journal_begin("reiserfs_delete_inode");
  k_.fn("reiserfs_delete_object", "reiserfs_delete_inode", 300, 3);
  for (uint64_t b = 0; b < file_blocks; ++b) {
    if (b % 1024 == 0) search_by_key("reiserfs_do_truncate");  // next indirect item
    k_.fn("reiserfs_free_block", "reiserfs_cut_from_item", 180, 0, 1);
    journal_mark_dirty(bitmap_of(first_page + b), "reiserfs_free_block");
    k_.conditional_schedule("reiserfs_do_truncate");  // 2.4 low-latency: long truncates
  }
  journal_mark_dirty(sd_leaf(f), "reiserfs_delete_inode");
  journal_end("reiserfs_delete_inode");
  k_.unlock_kernel({"reiserfs_delete_inode", "unlock_kernel"});
  s_.blocks_freed += file_blocks;
}

// kupdated: every interval, sync_old_buffers under the BKL writes the dirty inodes
// back into the tree and reiserfs_write_super commits the running transaction.
void ReiserFs::kupdate() {
  const int cpu = k_.smp_processor_id();
  const uint64_t every = uint64_t(p_.kupdate_interval_s) * uint64_t(k_.params().hz);
  for (uint64_t next = every;; next += every) {
    k_.sleep_until_tick(cpu, next, "schedule_timeout");
    s_.kupdates++;
    k_.lock_kernel("sync_old_buffers");
    k_.fn("sync_unlocked_inodes", "sync_old_buffers", 200, 2);
    const auto inodes = std::move(dirty_inodes_);  // the list is taken off the super block
    dirty_inodes_.clear();
    for (const auto& [dir, nr] : inodes) {  // reiserfs_write_inode: the stat data
      k_.fn("reiserfs_update_sd", "write_inode", 600, 4);
      journal_mark_dirty(sd_leaf({dir, nr}), "reiserfs_update_sd");
      k_.conditional_schedule("sync_unlocked_inodes");  // 2.4 low-latency: inode list walks
    }
    k_.fn("reiserfs_write_super", "sync_supers", 150, 2);
    if (j_len_ > 0 && !j_locked_) do_journal_end("flush_old_commits");
    k_.unlock_kernel({"sync_old_buffers", "unlock_kernel"});
  }
}

}  // namespace latsim::kernel
