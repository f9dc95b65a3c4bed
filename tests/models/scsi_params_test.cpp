// The SCSI family's declared knobs (platform.scsi.*): each round-trips, and the adapter
// runs on the values the table holds.
#include "models/scsi/aic7880.h"
#include "tests/models/params_test_util.h"

#include <gtest/gtest.h>

namespace latsim::scsi {
namespace {

using latsim::testing::expect_keys_round_trip;
using latsim::testing::with;

TEST(ScsiParams, Aic7880KeysRoundTrip) { expect_keys_round_trip(aic7880_keys()); }

TEST(ScsiParams, SequencerTimeIsInstructionsAtItsMips) {
  const auto keys = aic7880_keys();
  EXPECT_EQ(Aic7880Params{}.instructions(150), sc_time(15, SC_US));  // 10 MIPS
  EXPECT_EQ(with(Aic7880Params{}, keys, "sequencer_mips", "20").instructions(150),
            sc_time(7.5, SC_US));
}

}  // namespace
}  // namespace latsim::scsi
