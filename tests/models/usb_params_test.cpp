// The UHCI controllers' declared knobs (platform.usb.*): each round-trips, and the
// default is the VT82C686B's pair (functions 2 and 3) on the audio's IRQ.
#include "models/usb/uhci.h"
#include "tests/models/params_test_util.h"

#include <gtest/gtest.h>

namespace latsim::usb {
namespace {

using latsim::testing::expect_keys_round_trip;
using latsim::testing::key_at;

TEST(UsbParams, KeysRoundTrip) { expect_keys_round_trip(uhci_keys()); }

TEST(UsbParams, DefaultsAreThe686BPair) {
  const auto keys = uhci_keys();
  EXPECT_EQ(UhciParams{}.uhci, 2);
  EXPECT_EQ(key_at(keys, "uhci").spec.max, 2);  // the board has I/O BARs for two
  EXPECT_EQ(UhciParams{}.irq, 10);
}

}  // namespace
}  // namespace latsim::usb
