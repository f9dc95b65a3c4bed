// The IDE family's declared knobs (platform.ide.*, platform.disk.*): each round-trips,
// and the controller and the drive run on the values the tables hold.
#include "models/disk/disk_drive.h"
#include "models/ide/ide_controller.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/params_test_util.h"

#include <gtest/gtest.h>

namespace latsim::ide {
namespace {

using latsim::testing::expect_keys_round_trip;
using latsim::testing::fresh_simulation;
using latsim::testing::with;

TEST(IdeParams, ControllerKeysRoundTrip) { expect_keys_round_trip(ide_controller_keys()); }
TEST(IdeParams, DiskKeysRoundTrip) { expect_keys_round_trip(disk::disk_drive_keys()); }

TEST(IdeParams, DriveRunsOnTheDeclaredValues) {
  fresh_simulation();
  const auto keys = disk::disk_drive_keys();
  EXPECT_EQ(disk::DiskDrive(disk::DiskDriveParams{}).revolution(),
            sc_time(60.0 / 7200, SC_SEC));  // 120GXP
  EXPECT_EQ(disk::DiskDrive(with(disk::DiskDriveParams{}, keys, "rpm", "5400")).revolution(),
            sc_time(60.0 / 5400, SC_SEC));
  const disk::DiskDriveParams p = with(disk::DiskDriveParams{}, keys, "cache_kb", "512");
  EXPECT_EQ(p.cache_sectors(), 1024u);
  EXPECT_EQ(with(p, keys, "write_overhead_ms", "0.015").write_overhead(), sc_time(15, SC_US));
  EXPECT_EQ(disk::DiskDriveParams{}.avg_seek(), sc_time(8.5, SC_MS));
}

TEST(IdeParams, ControllerRunsOnTheDeclaredValues) {
  fresh_simulation();
  const auto keys = ide_controller_keys();
  EXPECT_DOUBLE_EQ(udma_mb_s(IdeControllerParams{}.udma_mode), 33.3);  // udma2
  EXPECT_EQ(IdeControllerParams{}.prd_fetch(), sc_time(120, SC_NS));   // fitted to O1
  EXPECT_EQ(with(IdeControllerParams{}, keys, "prd_fetch_ns", "250").prd_fetch(),
            sc_time(250, SC_NS));
  EXPECT_EQ(with(IdeControllerParams{}, keys, "burst_bytes", "32").burst_bytes, 32u);
}

}  // namespace
}  // namespace latsim::ide
