// Written pages are page-cache pages (mm/filemap.c generic_file_buffered_write): a file
// written and then read is read from the cache, on the fake drive (fake_disk.h); a page
// cache too small for what was written keeps the dirty pages and frees clean ones.
#include <gtest/gtest.h>
#include "kernel_sim/fs/ext3.h"
#include "tests/kernel_sim/block/fake_disk.h"

namespace latsim::kernel {
namespace {

using test::disk_params;
using test::DiskMachine;
using test::ms;

constexpr uint64_t kLba = 5000;

struct CacheRun {
  uint64_t reads = 0, writes = 0;  // READ / WRITE DMA commands
  uint64_t evictions = 0, cached = 0;
};

// A task writes `pages` pages of a file, then reads them back.
CacheRun write_then_read(uint64_t pages, int pagecache_mb) {
  KernelParams p = disk_params(32, 32);
  p.block.pagecache_mb = pagecache_mb;
  DiskMachine m(p);
  CacheRun r;
  m.boot([&](Kernel& k) {
    const FileId f = k.block().create_file(pages, kLba);
    k.block().start_pdflush();
    k.create_task(
        "writer",
        [&k, &r, f, pages] {
          for (uint64_t i = 0; i < pages; ++i) k.block().write_page(f, i, "generic_file_write");
          for (uint64_t i = 0; i < pages; ++i) r.cached += k.block().cached(f, i);
          for (uint64_t i = 0; i < pages; ++i) k.block().read_page(f, i, "do_generic_mapping_read");
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(200));
  for (const auto& c : m.commands) (c.write ? r.writes : r.reads)++;
  r.evictions = m.k->block().stats().evictions;
  return r;
}

// 64 pages written into a 1 MB cache: all 64 stay cached and the read issues no READ.
TEST(PageCache, AWrittenFileIsReadFromTheCache) {
  const CacheRun r = write_then_read(64, 1);
  EXPECT_EQ(r.cached, 64u);
  EXPECT_EQ(r.reads, 0u);
  EXPECT_EQ(r.evictions, 0u);
}

// 512 pages (2 MB) written into a 1 MB cache (256 pages) stay cached while dirty: the
// cache holds them over its size and the read issues no READ.
TEST(PageCache, DirtyPagesAreNotFreed) {
  const CacheRun r = write_then_read(512, 1);
  EXPECT_EQ(r.cached, 512u);
  EXPECT_EQ(r.evictions, 0u);
  EXPECT_EQ(r.reads, 0u);
}

// Once kjournald's commit (every 50 ms) has written them back they are clean, and the
// next pages written free the oldest down to the cache's size: reading the first pages
// again goes to the disk.
TEST(PageCache, CleanWrittenPagesAreFreedOldestFirst) {
  KernelParams p = disk_params(32, 32);
  p.block.pagecache_mb = 1;
  DiskMachine m(p);
  uint64_t first_cached_after = 99;
  m.boot([&](Kernel& k) {
    const FileId f = k.block().create_file(600, kLba);
    k.block().start_pdflush();
    k.ext3().start_kjournald(50);
    k.create_task(
        "writer",
        [&k, &first_cached_after, f] {
          for (uint64_t i = 0; i < 512; ++i) k.block().write_page(f, i, "generic_file_write");
          k.clock_nanosleep(k.now() + ms(120), "test");  // a commit writes them back
          for (uint64_t i = 512; i < 600; ++i) k.block().write_page(f, i, "generic_file_write");
          first_cached_after = k.block().cached(f, 0);
          for (uint64_t i = 0; i < 8; ++i) k.block().read_page(f, i, "do_generic_mapping_read");
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(300));
  uint64_t reads = 0;
  for (const auto& c : m.commands) reads += !c.write;
  EXPECT_EQ(first_cached_after, 0u);
  EXPECT_GE(m.k->block().stats().evictions, 600u - 256u);
  EXPECT_GT(reads, 0u);
}

}  // namespace
}  // namespace latsim::kernel
