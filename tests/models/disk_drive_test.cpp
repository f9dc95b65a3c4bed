// ATA disk mechanics (7200 rpm IBM Deskstar 120GXP class): seek time grows with
// the square root of distance (track-to-track at 1 cylinder, the average seek at
// one third of the stroke), rotational wait bounded by one revolution, zoned media
// rate from outer (LBA 0) to inner (capacity) zone, and the read-ahead cache.
#include "models/disk/disk_drive.h"
#include "tests/models/irq_timer_test_util.h"

#include <gtest/gtest.h>
#include <cmath>

namespace latsim::disk {
namespace {

using latsim::testing::fresh_simulation;

constexpr uint64_t kSectorsPerCylinder = 16 * 63;  // heads x sectors per track

// A drive of 3000 cylinders: one third of the stroke is exactly 1000 cylinders.
DiskDriveParams small_disk() {
  DiskDriveParams p;
  p.capacity_sectors = 3000 * kSectorsPerCylinder;
  return p;
}
uint64_t cyl(uint64_t c) { return c * kSectorsPerCylinder; }

// The seek rule: t2t + (avg - t2t) * sqrt(d / (cylinders / 3)), in picoseconds.
double seek_rule_ps(const DiskDriveParams& p, double d, double cylinders) {
  const double t2t = double(to_ps(p.track_to_track())), avg = double(to_ps(p.avg_seek()));
  return t2t + (avg - t2t) * std::sqrt(d / (cylinders / 3.0));
}

TEST(DiskDriveSeek, SameCylinderIsFree) {
  fresh_simulation();
  DiskDrive disk(small_disk());
  EXPECT_EQ(disk.seek_time(0, 0), SC_ZERO_TIME);
  EXPECT_EQ(disk.seek_time(0, kSectorsPerCylinder - 1), SC_ZERO_TIME);  // other head/sector
  EXPECT_EQ(disk.seek_time(cyl(7) + 5, cyl(7) + 900), SC_ZERO_TIME);
}

TEST(DiskDriveSeek, OneThirdStrokeTakesTheAverageSeek) {
  fresh_simulation();
  const DiskDriveParams p = small_disk();
  DiskDrive disk(p);
  EXPECT_EQ(disk.seek_time(0, cyl(1000)), sc_time(8.5, SC_MS));
  EXPECT_EQ(disk.seek_time(cyl(1500), cyl(2500)), sc_time(8.5, SC_MS));
  // A quarter of that distance: sqrt(1/4) = 1/2 of the way from t2t to average.
  EXPECT_EQ(disk.seek_time(0, cyl(250)), sc_time(1.2 + (8.5 - 1.2) / 2, SC_MS));
}

TEST(DiskDriveSeek, GrowsWithSquareRootOfDistanceAndIsSymmetric) {
  fresh_simulation();
  const DiskDriveParams p = small_disk();
  DiskDrive disk(p);
  sc_time prev = SC_ZERO_TIME;
  for (uint64_t d : {1, 2, 10, 100, 999, 1000, 2000, 2999}) {
    const sc_time s = disk.seek_time(cyl(0), cyl(d));
    EXPECT_NEAR(double(to_ps(s)), seek_rule_ps(p, double(d), 3000), 1.0) << d << " cylinders";
    EXPECT_EQ(disk.seek_time(cyl(d), cyl(0)), s);
    EXPECT_GT(s, prev);
    prev = s;
  }
  // One cylinder is just above track-to-track; full stroke sqrt(3) of the way past it.
  EXPECT_GT(disk.seek_time(0, cyl(1)), p.track_to_track());
  EXPECT_LT(disk.seek_time(0, cyl(1)), p.track_to_track() + sc_time(0.25, SC_MS));
}

TEST(DiskDriveSeek, ReferenceDriveAverageAtOneThirdOf58168Cylinders) {
  fresh_simulation();
  const DiskDriveParams p;  // 58168/16/63 geometry of seed 000
  DiskDrive disk(p);
  const uint64_t third = 58168 / 3;  // 19389 of 19389.33
  EXPECT_NEAR(double(to_ps(disk.seek_time(0, cyl(third)))), seek_rule_ps(p, double(third), 58168),
              1.0);
  EXPECT_NEAR(disk.seek_time(0, cyl(third)).to_seconds() * 1e3, 8.5, 0.001);
}

TEST(DiskDriveRotation, RevolutionIs8333UsAt7200Rpm) {
  fresh_simulation();
  DiskDrive disk(DiskDriveParams{});
  EXPECT_EQ(to_ps(disk.revolution()), 8333333333u);  // 60 / 7200 s
}

// Sectors lie end to end along the track at the zoned media rate: the angle
// between two sectors is the time the media takes to pass the sectors between.
TEST(DiskDriveRotation, WaitIsTheMediaTimeToTheSector) {
  fresh_simulation();
  const DiskDriveParams p;
  DiskDrive disk(p);
  const double st = double(to_ps(transfer_time(512, 44.0)));       // outer zone: 11.64 us
  EXPECT_EQ(disk.rotational_wait(0, SC_ZERO_TIME), SC_ZERO_TIME);  // under the head
  EXPECT_NEAR(double(to_ps(disk.rotational_wait(100, SC_ZERO_TIME))), 100 * st, 1000.0);
  // The logical CHS geometry (63 sectors per track) is a translation: sector 63 is
  // 63 sectors of media time away, not back under the head.
  EXPECT_NEAR(double(to_ps(disk.rotational_wait(63, SC_ZERO_TIME))), 63 * st, 1000.0);
  // One physical track of the outer zone holds 44 MB/s x 8.33 ms / 512 = 716 sectors.
  const double rev = double(to_ps(disk.revolution()));
  EXPECT_NEAR(rev / st, 716.1, 0.1);
  EXPECT_NEAR(double(to_ps(disk.rotational_wait(717, SC_ZERO_TIME))), 717 * st - rev, 1e5);
  // In the inner zone a sector is twice as long (22 MB/s).
  const uint64_t inner = p.capacity() - 10;
  const sc_time at = sc_time(3.7, SC_MS);
  const sc_time a = disk.rotational_wait(inner, at), b = disk.rotational_wait(inner + 1, at);
  EXPECT_NEAR(double(to_ps(b - a)), double(to_ps(transfer_time(512, 22.0))), 1000.0);
  // Whole revolutions later the platter is where it was.
  EXPECT_NEAR(double(to_ps(disk.rotational_wait(100, disk.revolution() * 5.0))), 100 * st, 2000.0);
}

// A stream that goes on where the last transfer ended loses no revolution; one
// that comes a microsecond late waits almost a whole one.
TEST(DiskDriveRotation, ContiguousSectorIsUnderTheHeadWhenTheLastOneEnds) {
  fresh_simulation();
  DiskDrive disk(DiskDriveParams{});
  const uint64_t lba = 100000;
  const sc_time start = sc_time(2, SC_MS);
  const sc_time t = start + disk.rotational_wait(lba, start);
  const sc_time end = t + transfer_time(512, disk.media_rate_mb_s(lba)) * 64.0;
  EXPECT_LT(disk.rotational_wait(lba + 64, end), sc_time(1, SC_NS));  // zone slope: ps
  EXPECT_GT(disk.rotational_wait(lba + 64, end + sc_time(1, SC_US)),
            disk.revolution() - sc_time(2, SC_US));
}

// The platters' phase at t = 0 (seeded per boot by the platform) turns the whole
// schedule: at phase 1/3 the sector a third of a turn on is under the head at t = 0.
TEST(DiskDriveRotation, SpindlePhaseShiftsEveryWait) {
  fresh_simulation();
  DiskDriveParams p;
  p.spindle_phase = 1.0 / 3.0;
  DiskDrive disk(p);
  const double rev = double(to_ps(disk.revolution()));
  EXPECT_NEAR(double(to_ps(disk.rotational_wait(0, SC_ZERO_TIME))), rev * 2 / 3, 2.0);
  const uint64_t third = 239;  // 716.1 / 3 = 238.7 sectors
  EXPECT_NEAR(disk.rotational_wait(third, SC_ZERO_TIME).to_seconds() * 1e6,
              (third - 716.1 / 3) * 11.636, 0.5);
}

TEST(DiskDriveRotation, WaitIsBoundedByOneRevolutionAndAveragesHalfOfIt) {
  fresh_simulation();
  DiskDrive disk(DiskDriveParams{});
  const sc_time rev = disk.revolution();
  // Sector 0 missed by a microsecond: almost a full turn, never a full one.
  EXPECT_LT(disk.rotational_wait(0, sc_time(1, SC_US)), rev);
  EXPECT_GT(disk.rotational_wait(0, sc_time(1, SC_US)), rev - sc_time(2, SC_US));
  double sum = 0;
  int n = 0;
  for (uint64_t s = 0; s < 63; ++s)
    for (int k = 0; k < 97; ++k) {
      const sc_time w = disk.rotational_wait(s * 1234567, sc_time(0.7919 * k, SC_MS));
      EXPECT_GE(w, SC_ZERO_TIME);
      EXPECT_LT(w, rev);
      sum += w.to_seconds();
      ++n;
    }
  // Average rotational latency 4.17 ms (CALIBRATION.md, derived: half a revolution).
  EXPECT_NEAR(sum / n * 1e3, 4.17, 0.1);
}

TEST(DiskDriveMedia, ZonedRateFallsFromOuterToInner) {
  fresh_simulation();
  const DiskDriveParams p;
  DiskDrive disk(p);
  EXPECT_DOUBLE_EQ(disk.media_rate_mb_s(0), 44.0);
  EXPECT_DOUBLE_EQ(disk.media_rate_mb_s(p.capacity()), 22.0);
  EXPECT_DOUBLE_EQ(disk.media_rate_mb_s(p.capacity() / 2),
                   44.0 - 22.0 * double(p.capacity() / 2) / double(p.capacity()));
  EXPECT_NEAR(disk.media_rate_mb_s(p.capacity() / 2), 33.0, 1e-6);
  EXPECT_DOUBLE_EQ(disk.media_rate_mb_s(p.capacity() * 2), 22.0);  // clamped past the end
  EXPECT_GT(disk.media_rate_mb_s(1000), disk.media_rate_mb_s(2000));
}

TEST(DiskDriveCache, MissPaysOverheadSeekAndRotation) {
  fresh_simulation();
  const DiskDriveParams p;
  DiskDrive disk(p);
  const uint64_t lba = 100000;  // cylinder 99; the heads start at LBA 0
  const sc_time now = sc_time(2, SC_MS);
  const ReadPlan plan = disk.read(lba, 256, now);
  const sc_time not_before = now + p.command_overhead() + disk.seek_time(0, lba);
  EXPECT_FALSE(plan.cache_hit);
  EXPECT_EQ(plan.lba, lba);
  EXPECT_EQ(plan.sectors, 256u);
  EXPECT_EQ(plan.not_before, not_before);
  EXPECT_EQ(plan.arrive0, not_before + disk.rotational_wait(lba, not_before));
  EXPECT_EQ(plan.sector_time, transfer_time(512, disk.media_rate_mb_s(lba)));
  EXPECT_EQ(plan.ready(0), plan.arrive0);
  EXPECT_EQ(plan.ready(255), plan.arrive0 + plan.sector_time * 255.0);
  EXPECT_EQ(disk.commands(), 1u);
  EXPECT_EQ(disk.cache_hits(), 0u);
}

TEST(DiskDriveCache, SequentialFollowUpHitsRandomReadMisses) {
  fresh_simulation();
  const DiskDriveParams p;
  DiskDrive disk(p);
  const ReadPlan first = disk.read(100000, 256, sc_time(2, SC_MS));
  // The next 128 KiB, asked for 20 ms later: the drive kept reading ahead.
  const sc_time t1 = sc_time(22, SC_MS);
  const ReadPlan seq = disk.read(100256, 256, t1);
  EXPECT_TRUE(seq.cache_hit);
  EXPECT_EQ(seq.not_before, t1 + p.cache_hit_overhead());
  EXPECT_EQ(seq.arrive0, first.arrive0 + first.sector_time * 256.0);  // stream continues
  EXPECT_EQ(seq.sector_time, first.sector_time);
  EXPECT_EQ(seq.ready(0), t1 + p.cache_hit_overhead());  // already buffered: only the 0.1 ms
  EXPECT_EQ(disk.cache_hits(), 1u);
  // Far away: overhead + seek from where the last command left the heads + rotation.
  const sc_time t2 = sc_time(30, SC_MS);
  const uint64_t far = 50000000;
  const ReadPlan rnd = disk.read(far, 8, t2);
  EXPECT_FALSE(rnd.cache_hit);
  const sc_time nb = t2 + p.command_overhead() + disk.seek_time(100512, far);
  EXPECT_EQ(rnd.not_before, nb);
  EXPECT_EQ(rnd.arrive0, nb + disk.rotational_wait(far, nb));
  EXPECT_GT(rnd.ready(0) - t2, seq.ready(0) - t1 + sc_time(3, SC_MS));
  EXPECT_EQ(disk.commands(), 3u);
  EXPECT_EQ(disk.cache_hits(), 1u);
}

TEST(DiskDriveCache, ReadBeyondTheCacheWindowMisses) {
  fresh_simulation();
  const DiskDriveParams p;  // 4096-sector (2 MiB) read cache
  DiskDrive disk(p);
  disk.read(200000, 64, SC_ZERO_TIME);  // stream consumed up to 200064
  EXPECT_TRUE(disk.read(200064 + 4095 - 8, 8, sc_time(50, SC_MS)).cache_hit);  // inside the window
  // consumed is now 200064 + 4095; one full window further is out of the cache.
  EXPECT_FALSE(disk.read(200064 + 4095 + 4096, 8, sc_time(60, SC_MS)).cache_hit);
  EXPECT_EQ(disk.cache_hits(), 1u);
}

}  // namespace
}  // namespace latsim::disk
