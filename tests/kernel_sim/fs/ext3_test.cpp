// fs/ext3 with jbd (data=ordered) on the fake drive: a transaction logs each metadata
// block once, and the commit writes them as one contiguous run behind a descriptor,
// cut at max_sectors_kb, then the commit block after them.
#include "kernel_sim/fs/ext3.h"
#include <gtest/gtest.h>
#include "tests/kernel_sim/block/fake_disk.h"

namespace latsim::kernel {
namespace {

using test::disk_params;
using test::DiskMachine;
using test::ms;

// 40 inodes a table block apart (32 inodes to a block), each dirtied twice, and nothing
// else: the commit at 100 ticks logs 40 blocks and a descriptor (328 sectors), which
// leave as 256 + 72 sectors at max_sectors_kb 128, then 8 sectors of commit block.
TEST(Ext3Test, ACommitLogsEachDirtiedBlockOnceInOneRun) {
  DiskMachine m(disk_params(128, 128));
  m.boot([&](Kernel& k) {
    k.ext3().start_kjournald(100);
    k.create_task(
        "touch",
        [&] {
          for (int pass = 0; pass < 2; ++pass)
            for (uint64_t i = 0; i < 40; ++i) k.ext3().dirty_inode(32 * i, "update_atime");
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(90));
  EXPECT_TRUE(m.commands.empty());
  EXPECT_EQ(m.k->ext3().running_transaction_blocks(), 40u);
  sc_core::sc_start(ms(40));
  ASSERT_EQ(m.commands.size(), 3u);
  EXPECT_EQ(m.commands[0].sectors, 256u);
  EXPECT_EQ(m.commands[1].sectors, 72u);
  EXPECT_EQ(m.commands[1].lba, m.commands[0].lba + 256);
  EXPECT_EQ(m.commands[2].sectors, 8u);
  EXPECT_EQ(m.commands[2].lba, m.commands[1].lba + 72);
  for (const auto& c : m.commands) EXPECT_TRUE(c.write);
  const Ext3Stats& s = m.k->ext3().stats();
  EXPECT_EQ(s.commits, 1u);
  EXPECT_EQ(s.metadata_blocks, 40u);
  EXPECT_EQ(s.log_blocks, 42u);  // descriptor, 40 copies, commit block
  EXPECT_EQ(s.dirty_inodes, 80u);
}

// A create touches the group's inode bitmap and descriptor, the inode's table block and
// the directory block; a second create in the same directory and table block adds none.
TEST(Ext3Test, CreatesInOneDirectoryShareTheirBlocks) {
  DiskMachine m(disk_params(128, 128));
  m.boot([&](Kernel& k) {
    k.ext3().start_kjournald(100);
    k.create_task(
        "sh",
        [&] {
          k.ext3().create(7, 100, "vfs_create");
          k.ext3().create(7, 101, "vfs_create");
          k.ext3().create(8, 200, "vfs_create");  // another directory and table block
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(50));
  EXPECT_EQ(m.k->ext3().running_transaction_blocks(), 6u);
  EXPECT_EQ(m.k->ext3().stats().creates, 3u);
}

// An empty transaction is not committed: no WRITE at all.
TEST(Ext3Test, NothingDirtiedNothingWritten) {
  DiskMachine m(disk_params(128, 128));
  m.boot([&](Kernel& k) { k.ext3().start_kjournald(100); });
  sc_core::sc_start(ms(350));
  EXPECT_TRUE(m.commands.empty());
  EXPECT_EQ(m.k->ext3().stats().commits, 0u);
}

}  // namespace
}  // namespace latsim::kernel
