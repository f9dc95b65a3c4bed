// Central PCI arbiter: rotating priority starts the search after the last owner;
// fixed priority always starts at master 0 (the host bridge).
#include "models/pci/pci_arbiter.h"

#include <gtest/gtest.h>
#include <vector>

namespace latsim::pci {
namespace {

// Reference rule for the expected values: search the requesters starting at
// `first`, wrapping around; the first asserted REQ# wins.
int first_requester_from(int first, const std::vector<bool>& req) {
  const int n = int(req.size());
  for (int i = 0; i < n; ++i)
    if (req[(first + i) % n]) return (first + i) % n;
  return -1;
}

TEST(PciArbiter, RotatingPriorityGivesEveryRequesterATurnInOrder) {
  PciArbiter arb(ArbitrationPolicy::Rotate);
  const std::vector<bool> all(4, true);
  // Everyone requesting: grants walk 0, 1, 2, 3 and wrap back to 0.
  std::vector<int> order;
  for (int i = 0; i < 6; ++i) order.push_back(arb.grant(all));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 0, 1}));
  EXPECT_EQ(arb.last_granted(), 1);
}

TEST(PciArbiter, RotatingPrioritySkipsIdleMastersAndWraps) {
  PciArbiter arb(ArbitrationPolicy::Rotate);
  const std::vector<bool> req{true, false, true, true};  // master 1 idle
  std::vector<int> order, expected;
  int last = -1;
  for (int i = 0; i < 5; ++i) {
    order.push_back(arb.grant(req));
    last = first_requester_from((last + 1) % 4, req);  // rule: start after the last owner
    expected.push_back(last);
  }
  EXPECT_EQ(order, expected);
  EXPECT_EQ(order, (std::vector<int>{0, 2, 3, 0, 2}));
}

TEST(PciArbiter, RotatingPriorityNewRequesterBehindLastOwnerWaitsItsTurn) {
  PciArbiter arb(ArbitrationPolicy::Rotate);
  EXPECT_EQ(arb.grant({false, false, true, false}), 2);
  // Masters 1 and 3 now request: 3 is next after the last owner (2), then 1.
  EXPECT_EQ(arb.grant({false, true, false, true}), 3);
  EXPECT_EQ(arb.grant({false, true, false, true}), 1);
  EXPECT_EQ(arb.grant({false, true, false, true}), 3);
}

TEST(PciArbiter, FixedPriorityAlwaysFavoursLowestNumberedRequester) {
  PciArbiter arb(ArbitrationPolicy::Fixed);
  const std::vector<bool> all(4, true);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(arb.grant(all), 0) << "grant " << i;
  // Host bridge (0) not requesting: master 1 wins every time, 2 and 3 starve.
  const std::vector<bool> no_host{false, true, true, true};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(arb.grant(no_host), 1) << "grant " << i;
  EXPECT_EQ(arb.grant({false, false, true, true}), 2);
  EXPECT_EQ(arb.grant({false, false, false, true}), 3);
}

TEST(PciArbiter, NoRequestGrantsNobodyAndKeepsLastOwner) {
  PciArbiter rot(ArbitrationPolicy::Rotate);
  EXPECT_EQ(rot.grant({}), -1);
  EXPECT_EQ(rot.grant({false, true}), 1);
  EXPECT_EQ(rot.grant({false, false}), -1);
  EXPECT_EQ(rot.last_granted(), 1);
  EXPECT_EQ(rot.grant({true, true}), 0);  // rotation continues after master 1
}

}  // namespace
}  // namespace latsim::pci
