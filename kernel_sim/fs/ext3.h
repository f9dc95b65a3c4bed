#pragma once
// fs/ext3 with fs/jbd in data=ordered mode, as a kernel build reaches it: each inode
// update (update_atime on a read or an mmap, a create, an unlink, a block allocation)
// joins the inode table, bitmap and directory blocks it changes to the running
// transaction (journal_get_write_access + journal_dirty_metadata; a block joins once per
// transaction). Every commit interval kjournald writes the data pages dirtied in the
// transaction (the block layer's data=ordered flush), then the metadata blocks into the
// log behind a descriptor block, one contiguous run, then the commit block, and waits
// for each (fs/jbd/commit.c journal_commit_transaction). Checkpointing (the metadata's
// writes to their home blocks, by pdflush once dirty_expire_centisecs has passed, 30 s
// after the commit) is not modelled.
#include <cstdint>
#include <set>
#include "kernel_sim/block/block_layer.h"

namespace latsim::kernel {

class Kernel;

struct Ext3Stats {
  uint64_t commits = 0, metadata_blocks = 0, max_commit_blocks = 0, log_blocks = 0;
  uint64_t dirty_inodes = 0, creates = 0, unlinks = 0, renames = 0;
};

class Ext3 {
 public:
  explicit Ext3(Kernel& k);
  // kjournald, committing every `interval_ticks` (0: no commits; data waits for pdflush).
  void start_kjournald(uint64_t interval_ticks);
  // Inodes are numbered as ext3 numbers them; a directory is named by the caller (its
  // directory block).
  // mark_inode_dirty -> ext3_dirty_inode: the inode's table block joins the transaction
  // (update_atime after a read(2) or an mmap, a write's mtime).
  void dirty_inode(uint64_t ino, const char* parent);
  // ext3_create -> ext3_new_inode + ext3_add_entry: the group's inode bitmap, the group
  // descriptor, the inode's table block and the directory block.
  void create(uint64_t dir, uint64_t ino, const char* parent);
  // ext3_get_block for a new file's blocks at `lba`: the block bitmap, the descriptor and
  // the inode (its i_block pointers).
  void get_blocks(uint64_t ino, uint64_t lba, const char* parent);
  void unlink(uint64_t dir, uint64_t ino, const char* parent);  // ext3_unlink + ext3_delete_inode
  void rename(uint64_t dir, const char* parent);                // ext3_rename in one directory
  const Ext3Stats& stats() const { return s_; }
  size_t running_transaction_blocks() const { return t_buffers_.size(); }

 private:
  // The metadata blocks, by kind and index (not disk addresses: the log holds copies).
  enum Kind : uint64_t { kInodeTable = 1, kInodeBitmap, kBlockBitmap, kGroupDesc, kDir };
  static uint64_t block(Kind kind, uint64_t index) { return uint64_t(kind) << 48 | index; }
  void journal_start(const char* parent);
  void journal_dirty_metadata(uint64_t blk, const char* parent);
  void journal_stop(const char* parent);
  void kjournald(uint64_t interval_ticks);
  void journal_commit_transaction();
  void write_log(uint32_t blocks);  // the next `blocks` log blocks, written and waited for

  Kernel& k_;
  std::set<uint64_t> t_buffers_;  // the running transaction's metadata blocks, each once
  FileId log_ = 0;                // the journal inode's blocks on hda
  uint64_t log_head_ = 0;
  Task* kjournald_ = nullptr;
  Ext3Stats s_;
};

}  // namespace latsim::kernel
