#include "kernel_sim/fs/ext3.h"
#include <algorithm>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
// mke2fs's layout for 4 KiB blocks: 128-byte inodes (32 to a table block), 16384 inodes
// and 32768 blocks to a group, 128 group descriptors to a block.
constexpr uint64_t kInodesPerBlock = 4096 / 128, kInodesPerGroup = 16384;
constexpr uint64_t kBlocksPerGroup = 32768, kDescPerBlock = 4096 / 32;
// ext2fs_default_journal_size: 16384 blocks on a file system over 2 GiB; the journal
// inode's blocks follow group 0's inode table (assumption: e2fsprogs of 2004 allocated
// them there).
constexpr uint64_t kLogBlocks = 16384, kLogLba = 63 + 8 * 1100;
// journal_get_descriptor_buffer: a descriptor holds (4096 - 12) / 8 tags, one a block.
constexpr uint32_t kTagsPerDescriptor = (4096 - 12) / 8;
}  // namespace

Ext3::Ext3(Kernel& k) : k_(k) {}

void Ext3::start_kjournald(uint64_t interval_ticks) {
  if (kjournald_ || !interval_ticks) return;
  log_ = k_.block().create_file(kLogBlocks, kLogLba);
  k_.block().set_data_ordered();
  kjournald_ = k_.create_task(
      "kjournald", [this, interval_ticks] { kjournald(interval_ticks); }, Policy::Normal, 0);
}

// ext3_journal_start -> journal_start: a handle on the running transaction.
void Ext3::journal_start(const char* parent) { k_.fn("journal_start", parent, 150, 2); }

void Ext3::journal_stop(const char* parent) { k_.fn("journal_stop", parent, 150, 2); }

// journal_get_write_access (do_get_write_access) then journal_dirty_metadata: the buffer
// joins t_buffers unless it is on it already.
void Ext3::journal_dirty_metadata(uint64_t blk, const char* parent) {
  k_.fn("journal_get_write_access", parent, 300, 3);
  k_.fn("journal_dirty_metadata", parent, 200, 2);
  if (kjournald_) t_buffers_.insert(blk);
}

void Ext3::dirty_inode(uint64_t ino, const char* parent) {
  k_.fn("ext3_dirty_inode", parent, 100, 1);
  journal_start("ext3_dirty_inode");
  k_.fn("ext3_get_inode_loc", "ext3_reserve_inode_write", 300, 3);
  journal_dirty_metadata(block(kInodeTable, ino / kInodesPerBlock), "ext3_reserve_inode_write");
  k_.fn("ext3_do_update_inode", "ext3_mark_iloc_dirty", 400, 4);
  journal_stop("ext3_dirty_inode");
  s_.dirty_inodes++;
}

void Ext3::create(uint64_t dir, uint64_t ino, const char* parent) {
  k_.fn("ext3_create", parent, 200, 3);
  journal_start("ext3_create");
  k_.fn("ext3_new_inode", "ext3_create", 1500, 10);  // find_group_other, the bitmap scan
  const uint64_t group = ino / kInodesPerGroup;
  journal_dirty_metadata(block(kInodeBitmap, group), "ext3_new_inode");
  journal_dirty_metadata(block(kGroupDesc, group / kDescPerBlock), "ext3_new_inode");
  journal_dirty_metadata(block(kInodeTable, ino / kInodesPerBlock), "ext3_mark_inode_dirty");
  k_.fn("ext3_add_entry", "ext3_add_nondir", 1200, 8);  // the directory block's search
  journal_dirty_metadata(block(kDir, dir), "ext3_add_entry");
  journal_stop("ext3_create");
  s_.creates++;
}

void Ext3::get_blocks(uint64_t ino, uint64_t lba, const char* parent) {
  k_.fn("ext3_get_block_handle", parent, 400, 4);
  k_.fn("ext3_new_block", "ext3_alloc_branch", 800, 6);
  const uint64_t group = lba / 8 / kBlocksPerGroup;
  journal_dirty_metadata(block(kBlockBitmap, group), "ext3_new_block");
  journal_dirty_metadata(block(kGroupDesc, group / kDescPerBlock), "ext3_new_block");
  journal_dirty_metadata(block(kInodeTable, ino / kInodesPerBlock), "ext3_splice_branch");
}

void Ext3::unlink(uint64_t dir, uint64_t ino, const char* parent) {
  k_.fn("ext3_unlink", parent, 300, 3);
  journal_start("ext3_unlink");
  k_.fn("ext3_delete_entry", "ext3_unlink", 800, 6);
  journal_dirty_metadata(block(kDir, dir), "ext3_delete_entry");
  // iput of the last link: ext3_delete_inode truncates and frees the inode.
  k_.fn("ext3_truncate", "ext3_delete_inode", 1000, 8);
  journal_dirty_metadata(block(kInodeTable, ino / kInodesPerBlock), "ext3_delete_inode");
  k_.fn("ext3_free_inode", "ext3_delete_inode", 600, 4);
  journal_dirty_metadata(block(kInodeBitmap, ino / kInodesPerGroup), "ext3_free_inode");
  journal_stop("ext3_unlink");
  s_.unlinks++;
}

void Ext3::rename(uint64_t dir, const char* parent) {
  k_.fn("ext3_rename", parent, 1200, 8);
  journal_start("ext3_rename");
  journal_dirty_metadata(block(kDir, dir), "ext3_rename");
  journal_stop("ext3_rename");
  s_.renames++;
}

// kjournald: sleep the commit interval (schedule_timeout), then commit.
void Ext3::kjournald(uint64_t interval_ticks) {
  const int cpu = k_.smp_processor_id();
  for (uint64_t next = interval_ticks;; next += interval_ticks) {
    k_.sleep_until_tick(cpu, next, "schedule_timeout");
    if (!k_.block().transaction_has_data() && t_buffers_.empty()) continue;
    journal_commit_transaction();
  }
}

// journal_commit_transaction: the data first (data=ordered), then each metadata buffer
// through journal_write_metadata_buffer into the log behind its descriptor, then the
// commit record once they are on disk.
void Ext3::journal_commit_transaction() {
  k_.fn("journal_commit_transaction", "kjournald", 400, 4);
  k_.block().journal_submit_data_buffers();
  const auto n = uint32_t(t_buffers_.size());
  t_buffers_.clear();
  uint32_t log_blocks = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (i % kTagsPerDescriptor == 0) {
      k_.fn("journal_get_descriptor_buffer", "journal_commit_transaction", 300, 3);
      log_blocks++;
    }
    // journal_write_metadata_buffer: a log buffer_head for the block; kmap_atomic to
    // check the first word for the journal's magic (escaped if it matches).
    k_.fn("journal_write_metadata_buffer", "journal_commit_transaction", 500, 4);
    log_blocks++;
  }
  if (log_blocks) write_log(log_blocks);  // submit_bh of the descriptors and copies, then wait
  k_.fn("journal_write_commit_record", "journal_commit_transaction", 200, 2);
  write_log(1);
  s_.commits++;
  LATSIM_DEBUG(fs, k_.log_who(), "ext3 commit: {} metadata blocks, {} log blocks", n,
               log_blocks + 1);
  s_.metadata_blocks += n;
  s_.log_blocks += log_blocks + 1;
  s_.max_commit_blocks = std::max<uint64_t>(s_.max_commit_blocks, n);
}

void Ext3::write_log(uint32_t blocks) {
  if (log_head_ + blocks > kLogBlocks) log_head_ = 0;  // the log wraps
  k_.block().write_sync(log_, log_head_, blocks, "journal_commit_transaction");
  log_head_ += blocks;
}

}  // namespace latsim::kernel
