// mm/page-writeback.c and kjournald's data=ordered flush on the fake drive
// (fake_disk.h): dirty pages of written files leave as WRITE DMA commands.
#include <gtest/gtest.h>
#include "kernel_sim/fs/ext3.h"
#include "tests/kernel_sim/block/fake_disk.h"

namespace latsim::kernel {
namespace {

using test::disk_params;
using test::DiskMachine;

using test::ms;

// Two objects of 5 and 3 pages written back to back at adjacent LBAs, well under
// dirty_background_ratio: nothing is written until kjournald's commit (every 100 ticks
// here), which writes both files; the elevator back-merges the second file's bio into
// the first's request: one WRITE of 64 sectors, then the commit block in the log.
TEST(WritebackTest, CommitWritesTheTransactionsPagesAsOneMergedRequest) {
  DiskMachine m(disk_params(128, 128));
  m.boot([&](Kernel& k) {
    k.block().start_pdflush();
    k.ext3().start_kjournald(100);
    k.create_task(
        "as",
        [&] {
          const FileId a = k.block().create_file(5, 3000);
          for (uint64_t p = 0; p < 5; ++p) k.block().write_page(a, p, "generic_file_write");
          const FileId b = k.block().create_file(3, 3040);
          for (uint64_t p = 0; p < 3; ++p) k.block().write_page(b, p, "generic_file_write");
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(90));
  EXPECT_TRUE(m.commands.empty());
  EXPECT_EQ(m.k->block().nr_dirty(), 8u);
  sc_core::sc_start(ms(30));
  ASSERT_EQ(m.commands.size(), 2u);
  EXPECT_TRUE(m.commands[0].write);
  EXPECT_EQ(m.commands[0].lba, 3000u);
  EXPECT_EQ(m.commands[0].sectors, 64u);
  EXPECT_TRUE(m.commands[1].write);  // journal_write_commit_record, after the data
  EXPECT_EQ(m.commands[1].sectors, 8u);
  EXPECT_EQ(m.k->block().nr_dirty(), 0u);
  EXPECT_EQ(m.k->block().stats().pages_written, 8u + 1);  // and the commit block
  EXPECT_EQ(m.k->ext3().stats().commits, 1u);
}

// With max_sectors_kb 16 the same 8 pages leave as two requests of 32 sectors (then the
// commit block).
TEST(WritebackTest, CommitRequestsAreCutAtMaxSectors) {
  DiskMachine m(disk_params(16, 128));
  m.boot([&](Kernel& k) {
    k.block().start_pdflush();
    k.ext3().start_kjournald(100);
    k.create_task(
        "as",
        [&] {
          const FileId a = k.block().create_file(8, 3000);
          for (uint64_t p = 0; p < 8; ++p) k.block().write_page(a, p, "generic_file_write");
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(120));
  ASSERT_EQ(m.commands.size(), 3u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(m.commands[i].write);
    EXPECT_EQ(m.commands[i].sectors, 32u);
  }
  EXPECT_EQ(m.commands[1].lba, 3032u);
}

}  // namespace
}  // namespace latsim::kernel
