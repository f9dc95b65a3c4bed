#pragma once
// fs/reiserfs (2.4.10) as dbench reaches it, with the 2.4 VFS's big kernel lock
// around each entry point: one journal shared by every writer (journal_begin waits
// while a transaction commits; a transaction logs each distinct metadata block
// once; its commit copies every logged block and sleeps on the log writes with the
// BKL held), inode deletion freeing every block of the file, and kupdated's
// sync_old_buffers every 5 s, whose reiserfs_write_super commits the running
// transaction. A file is named by its owner (a dbench client: its own directory)
// and its number there; the metadata blocks it touches follow from that.
#include <cstdint>
#include <set>
#include <unordered_set>
#include "kernel_sim/fs/reiserfs_params.h"
#include "kernel_sim/locks/semaphore.h"

namespace latsim::kernel {

class Kernel;
struct Task;

struct ReiserFsStats {
  uint64_t commits = 0, committed_blocks = 0, max_commit_blocks = 0, join_waits = 0, kupdates = 0;
  uint64_t creates = 0, unlinks = 0, blocks_allocated = 0, blocks_freed = 0;
};

class ReiserFs {
 public:
  ReiserFs(Kernel& k, const ReiserFsParams& p);
  void mount();  // the journal area and the data area on disk, kupdated started

  struct File {
    uint32_t dir = 0, nr = 0;  // owner directory and file number in it
  };
  // VFS entry points (fs/namei.c takes the BKL around the i_op call in 2.4).
  void create(File f, const char* parent);  // vfs_create -> reiserfs_create
  // vfs_unlink + iput of a file of `pages` blocks whose first block is `first_page`.
  void unlink(File f, uint64_t first_page, uint64_t pages, const char* parent);
  void get_block(File f, uint64_t page, const char* parent);  // one new block at `page`
  void dirty_inode(File f);                                   // mtime: write_inode later
  void lookup(const char* parent);                            // path walk to a cached dentry
  uint64_t data_pages() const { return p_.data_pages; }
  uint64_t data_page_index(uint64_t page) const { return p_.journal_blocks + page; }
  const ReiserFsStats& stats() const { return s_; }

 private:
  void journal_begin(const char* parent);
  void journal_mark_dirty(uint64_t block, const char* parent);
  // Metadata blocks of a file: its directory's leaf, its stat-data/indirect leaf, the
  // directory's own stat data, and the bitmap block covering a data block.
  static uint64_t dir_leaf(File f) { return key(f.dir, 1, f.nr / 16); }
  static uint64_t sd_leaf(File f) { return key(f.dir, 2, f.nr / 8); }
  static uint64_t dir_sd(File f) { return key(f.dir, 3, 0); }
  uint64_t bitmap_of(uint64_t page) const { return key(0xffffffu, 4, page / 32768); }
  static uint64_t key(uint64_t dir, uint64_t kind, uint64_t i) {
    return dir << 40 | kind << 32 | i;
  }
  void journal_end(const char* parent);
  void do_journal_end(const char* parent);  // commit the running transaction
  void search_by_key(const char* parent);
  void delete_inode(File f, uint64_t first_page, uint64_t file_blocks);  // reiserfs_delete_inode
  void kupdate();

  Kernel& k_;
  ReiserFsParams p_;
  uint32_t j_len_ = 0;                     // blocks logged in the running transaction
  std::unordered_set<uint64_t> j_blocks_;  // which (each is logged once per transaction)
  bool j_locked_ = false;                  // a commit is under way: joiners wait
  uint32_t log_head_ = 0;                  // next log block
  std::set<std::pair<uint32_t, uint32_t>> dirty_inodes_;  // (dir, nr), sync order
  WaitQueue j_join_wait_;
  ReiserFsStats s_;
};

}  // namespace latsim::kernel
