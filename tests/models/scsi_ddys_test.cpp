// The DDYS target's side of a command: it reconnects for a read when the rest of the
// data can follow at the bus rate (buffer-full ratio), works its tagged queue in order,
// and reports a write when it is in the cache, or on the media without write cache.
#include "models/scsi/ddys.h"
#include "tests/models/irq_timer_test_util.h"

#include <gtest/gtest.h>

namespace latsim::scsi {
namespace {

using latsim::testing::fresh_simulation;

disk::DiskDriveParams ddys_params() {  // the athlon-1000-irongate preset's drive
  disk::DiskDriveParams p;
  p.rpm = 10000;
  p.avg_seek_ms = 4.9;
  p.outer_mb_s = 36.0;
  p.inner_mb_s = 21.0;
  p.capacity_sectors = 35843670;
  return p;
}

TEST(Ddys, ReadReconnectsSoTheTransferEndsWithTheMedia) {
  fresh_simulation();
  disk::DiskDrive drive(ddys_params()), ref(ddys_params());
  Ddys t(drive, 40.0);
  const sc_time at = sc_time(1, SC_MS);
  const TargetPlan p = t.queue(false, 3000000, 256, at);
  const disk::ReadPlan r = ref.read(3000000, 256, at);
  const sc_time all = transfer_time(512, 40.0) * 256.0;
  EXPECT_TRUE(p.disconnects);
  EXPECT_GT(p.reselect, r.ready(0));  // media (<= 36 MB/s) slower than the bus
  EXPECT_EQ(p.reselect + all, r.ready(255) + transfer_time(512, 40.0));
  EXPECT_EQ(p.data_end, p.reselect + all);
  EXPECT_EQ(t.mechanics_free(), r.ready(255));
}

TEST(Ddys, QueuedCommandsStartWhenTheMechanicsAreFree) {
  fresh_simulation();
  disk::DiskDrive drive(ddys_params());
  Ddys t(drive, 40.0);
  const sc_time at = sc_time(1, SC_MS);
  t.queue(false, 3000000, 256, at);
  const sc_time busy_until = t.mechanics_free();
  const TargetPlan second = t.queue(false, 9000000, 8, at);  // queued at the same moment
  // Its overhead overlapped the first one's media transfer: only seek and rotation remain.
  const sc_time seek = drive.seek_time(3000000 + 256, 9000000);
  EXPECT_GE(second.reselect, busy_until + seek);
  EXPECT_LT(second.reselect, busy_until + seek + drive.revolution());
  EXPECT_EQ(t.commands(), 2u);
}

TEST(Ddys, WriteStatusFollowsTheCacheOrTheMedia) {
  fresh_simulation();
  disk::DiskDriveParams wt = ddys_params();
  wt.write_cache = false;
  disk::DiskDrive cached(ddys_params()), through(wt);
  Ddys a(cached, 40.0), b(through, 40.0);
  const sc_time at = sc_time(1, SC_MS);
  const TargetPlan wb = a.queue(true, 3000000, 64, at);
  const TargetPlan wr = b.queue(true, 3000000, 64, at);
  EXPECT_FALSE(wb.disconnects);
  EXPECT_EQ(wb.status, wb.data_end);
  EXPECT_EQ(wb.data_end - wb.reselect, transfer_time(512, 40.0) * 64.0);
  EXPECT_TRUE(wr.disconnects);
  EXPECT_GT(wr.status, wr.data_end);  // seek, rotation and the media write
}

}  // namespace
}  // namespace latsim::scsi
