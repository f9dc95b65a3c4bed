// The drive's write cache (hdparm -W): a write's sectors enter the buffer at the
// interface rate as long as dirty data leaves room; each command's data is then
// written to the media in order (after the data is in: seek, rotation, media rate).
// Without the cache the command lasts until its data is on the media. A read miss
// waits for queued flushes.
#include "models/disk/disk_drive.h"
#include "tests/models/irq_timer_test_util.h"

#include <gtest/gtest.h>

namespace latsim::disk {
namespace {

using latsim::testing::fresh_simulation;

sc_time iface() { return transfer_time(512, 33.3); }  // udma2: one sector
constexpr uint64_t kLba = 100000;

DiskDriveParams params(bool cache, uint32_t cache_sectors = 4096) {
  DiskDriveParams p;
  p.write_cache = cache;
  p.write_cache_kb = int(cache_sectors / 2);
  return p;
}

// Expected media phase of a write of n sectors at lba once the data is in at `go`.
struct Media {
  sc_time start, end, sector;
};
Media media(const DiskDrive& d, uint64_t from_lba, uint64_t lba, uint32_t n, sc_time go) {
  const sc_time after_seek = go + d.seek_time(from_lba, lba);
  Media m;
  m.start = after_seek + d.rotational_wait(lba, after_seek);
  m.sector = transfer_time(512, d.media_rate_mb_s(lba));
  m.end = m.start + m.sector * double(n);
  return m;
}

TEST(DiskDriveWriteCache, WithRoomSectorsGoInAtOnceAndAreFlushedAfterwards) {
  fresh_simulation();
  DiskDrive disk(params(true));
  const sc_time t0 = sc_time(1, SC_MS);
  const WritePlan w = disk.write(kLba, 64, t0, iface());
  ASSERT_EQ(w.accept.size(), 64u);
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(w.ready(i), t0 + sc_time(15, SC_US)) << i;
  EXPECT_TRUE(w.write_back);
  const sc_time in_end = t0 + sc_time(15, SC_US) + iface() * 64.0;
  const Media m = media(disk, 0, kLba, 64, in_end);
  EXPECT_EQ(w.media_done, m.end);
  EXPECT_EQ(disk.media_free(), m.end);
  EXPECT_EQ(disk.dirty_sectors(in_end), 64u);
  EXPECT_EQ(disk.dirty_sectors(m.start + m.sector * 10.0), 54u);
  EXPECT_EQ(disk.dirty_sectors(m.end), 0u);
}

TEST(DiskDriveWriteCache, FullCacheTakesASectorOnlyWhenADirtyOneReachesTheMedia) {
  fresh_simulation();
  DiskDrive disk(params(true, 16));  // room for 16 dirty sectors
  const sc_time t0 = sc_time(1, SC_MS);
  const WritePlan a = disk.write(kLba, 16, t0, iface());  // fills it
  const sc_time a_in = t0 + sc_time(15, SC_US) + iface() * 16.0;
  const Media ma = media(disk, 0, kLba, 16, a_in);
  ASSERT_EQ(a.media_done, ma.end);
  const sc_time t1 = a_in + sc_time(1, SC_US);
  const WritePlan b = disk.write(kLba + 16, 8, t1, iface());  // right behind it
  // Sector i of the second write waits for sector i of the first to be written.
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(b.ready(i), ma.start + ma.sector * double(i + 1)) << i;
  // Its data is in after the slower of media and interface; then its own flush
  // follows the first one on the same track (no seek, a rotational wait).
  sc_time in = SC_ZERO_TIME;
  for (uint32_t i = 0; i < 8; ++i) in = std::max(in, b.ready(i)) + iface();
  const Media mb = media(disk, kLba + 16, kLba + 16, 8, std::max(ma.end, in));
  EXPECT_EQ(b.media_done, mb.end);
}

// Sequential writes that reach the cache before the flush ahead of them ends are
// written on in one stream at the media rate: no seek, no revolution lost.
TEST(DiskDriveWriteCache, SequentialFlushesFollowEachOtherAtTheMediaRate) {
  fresh_simulation();
  DiskDrive disk(params(true));
  const sc_time t0 = sc_time(1, SC_MS);
  const WritePlan a = disk.write(kLba, 64, t0, iface());
  const sc_time t1 = t0 + sc_time(15, SC_US) + iface() * 64.0 + sc_time(50, SC_US);
  ASSERT_LT(t1 + sc_time(15, SC_US) + iface() * 64.0, a.media_done);  // B is in first
  const WritePlan b = disk.write(kLba + 64, 64, t1, iface());
  const sc_time st = transfer_time(512, disk.media_rate_mb_s(kLba + 64));
  EXPECT_NEAR(double(to_ps(b.media_done - a.media_done)), double(to_ps(st * 64.0)), 1000.0);
  // With the host faster than the media (udma5, 100 MB/s), 1 MiB of such writes
  // drains at the media rate of the outer zone (44 MB/s), not one command per turn.
  const sc_time fast = transfer_time(512, 100.0);
  sc_time t = t1, done = b.media_done;
  for (uint64_t lba = kLba + 128; lba < kLba + 128 + 2048; lba += 64) {
    t += sc_time(15, SC_US) + fast * 64.0;
    done = disk.write(lba, 64, t, fast).media_done;
  }
  EXPECT_NEAR(2048 * 512 / 1e6 / (done - b.media_done).to_seconds(), 44.0, 0.1);
}

TEST(DiskDriveWriteCache, WriteThroughEndsWhenTheDataIsOnTheMedia) {
  fresh_simulation();
  DiskDrive disk(params(false));
  const sc_time t0 = sc_time(1, SC_MS);
  const WritePlan w = disk.write(kLba, 64, t0, iface());
  EXPECT_FALSE(w.write_back);
  const sc_time not_before = t0 + sc_time(15, SC_US);
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(w.ready(i), not_before);
  // The media follows the data from the start: seek, rotation, then the slower of
  // the media (44 MB/s outer zone) and the interface (33.3 MB/s udma2) sets the end.
  const Media m = media(disk, 0, kLba, 64, not_before);
  const sc_time in_end = not_before + iface() * 64.0;
  EXPECT_EQ(w.media_done, std::max(m.end, in_end + m.sector));
  EXPECT_EQ(disk.dirty_sectors(t0), 0u);
}

TEST(DiskDriveWriteCache, CommandLargerThanTheCacheIsWrittenThrough) {
  fresh_simulation();
  DiskDrive disk(params(true, 32));
  const WritePlan w = disk.write(kLba, 64, sc_time(1, SC_MS), iface());
  EXPECT_FALSE(w.write_back);
}

TEST(DiskDriveWriteCache, ReadMissWaitsForTheFlushToFinish) {
  fresh_simulation();
  const DiskDriveParams p = params(true);
  DiskDrive disk(p);
  const sc_time t0 = sc_time(1, SC_MS);
  const WritePlan w = disk.write(kLba, 64, t0, iface());
  const sc_time t1 = t0 + sc_time(100, SC_US);  // long before the flush is done
  ASSERT_GT(w.media_done, t1 + p.command_overhead());
  const uint64_t far = 2000000;
  const ReadPlan r = disk.read(far, 8, t1);
  EXPECT_EQ(r.not_before, w.media_done + disk.seek_time(kLba + 64, far));
  EXPECT_FALSE(r.cache_hit);
}

}  // namespace
}  // namespace latsim::disk
