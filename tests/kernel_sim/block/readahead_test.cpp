// mm/readahead.c per file and ll_rw_blk.c's max_sectors, on the fake drive
// (fake_disk.h): which READ DMA commands a reader's page reads turn into.
#include <gtest/gtest.h>
#include "tests/kernel_sim/block/fake_disk.h"

namespace latsim::kernel {
namespace {

using test::disk_params;
using test::DiskCommand;
using test::DiskMachine;

using test::ms;

std::vector<uint32_t> sizes(const std::vector<DiskCommand>& cmds) {
  std::vector<uint32_t> v;
  for (const auto& c : cmds) v.push_back(c.sectors);
  return v;
}

// A cold 20-page file with max_sectors_kb 32: the first read submits the whole file
// (read-ahead stops at i_size), cut into bios of 8 pages that cannot merge beyond
// 64 sectors: 64 + 64 + 32 sectors at consecutive LBAs.
TEST(ReadaheadTest, ColdFileReadIsCutAtMaxSectors) {
  DiskMachine m(disk_params(32, 128));
  FileId f = 0;
  bool done = false;
  m.boot([&](Kernel& k) {
    f = k.block().create_file(20, 1000);
    k.create_task(
        "cc1",
        [&] {
          for (uint64_t p = 0; p < 20; ++p) k.block().read_page(f, p, "do_generic_mapping_read");
          done = true;
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(50));
  ASSERT_TRUE(done);
  EXPECT_EQ(sizes(m.commands), (std::vector<uint32_t>{64, 64, 32}));
  ASSERT_EQ(m.commands.size(), 3u);
  EXPECT_EQ(m.commands[0].lba, 1000u);
  EXPECT_EQ(m.commands[1].lba, 1064u);
  EXPECT_EQ(m.commands[2].lba, 1128u);
  for (const auto& c : m.commands) EXPECT_FALSE(c.write);
  EXPECT_EQ(m.k->block().stats().pages_from_disk, 20u);
}

// The same file with max_sectors_kb 128: one request of 160 sectors.
TEST(ReadaheadTest, ColdFileIsOneRequestWithinMaxSectors) {
  DiskMachine m(disk_params(128, 128));
  m.boot([&](Kernel& k) {
    const FileId f = k.block().create_file(20, 1000);
    k.create_task(
        "cc1",
        [&, f] {
          for (uint64_t p = 0; p < 20; ++p) k.block().read_page(f, p, "do_generic_mapping_read");
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(50));
  EXPECT_EQ(sizes(m.commands), (std::vector<uint32_t>{160}));
}

// A header read a second time is found in the page cache: no command, the same
// copies to user space.
TEST(ReadaheadTest, SecondReadOfACachedFileIssuesNoRequest) {
  DiskMachine m(disk_params(128, 128));
  size_t after_first = 0;
  bool done = false;
  m.boot([&](Kernel& k) {
    const FileId f = k.block().create_file(3, 5000);
    k.create_task(
        "cc1",
        [&, f] {
          for (uint64_t p = 0; p < 3; ++p) k.block().read_page(f, p, "do_generic_mapping_read");
          after_first = m.commands.size();
          for (uint64_t p = 0; p < 3; ++p) k.block().read_page(f, p, "do_generic_mapping_read");
          done = true;
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(50));
  ASSERT_TRUE(done);
  EXPECT_EQ(after_first, 1u);
  EXPECT_EQ(m.commands.size(), 1u);
  EXPECT_EQ(m.k->block().stats().pages_read, 6u);
  EXPECT_EQ(m.k->block().stats().pages_from_disk, 3u);
}

// Two files of 64 pages read in turns, a page of each: each keeps its own window.
// read_ahead_kb 128 = 32 pages: page 0 of a file submits its current window [0, 32),
// page 1 its ahead window [32, 64); one shared window would have restarted at every
// switch of file.
TEST(ReadaheadTest, EachFileKeepsItsOwnWindow) {
  DiskMachine m(disk_params(128, 128));
  FileId a = 0, b = 0;
  bool done = false;
  m.boot([&](Kernel& k) {
    a = k.block().create_file(64, 10000);
    b = k.block().create_file(64, 20000);
    k.create_task(
        "reader",
        [&] {
          for (uint64_t p = 0; p < 40; ++p) {
            k.block().read_page(a, p, "do_generic_mapping_read");
            k.block().read_page(b, p, "do_generic_mapping_read");
          }
          done = true;
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(50));
  ASSERT_TRUE(done);
  ASSERT_EQ(m.commands.size(), 4u);
  const uint64_t want[] = {10000, 20000, 10256, 20256};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(m.commands[i].lba, want[i]) << i;
    EXPECT_EQ(m.commands[i].sectors, 256u) << i;
  }
  // Page 39 is in the window that was the ahead one: [32, 64), no ahead beyond i_size.
  for (FileId f : {a, b}) {
    EXPECT_EQ(m.k->block().ra_state(f).start, 32u);
    EXPECT_EQ(m.k->block().ra_state(f).size, 32u);
    EXPECT_EQ(m.k->block().ra_state(f).ahead_size, 0u);
  }
}

}  // namespace
}  // namespace latsim::kernel
