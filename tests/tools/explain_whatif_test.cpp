// Which reruns `latsim explain --whatif` plans for a ledger's rows: the switches that take
// each cause away, once each.
#include <gtest/gtest.h>
#include "tools/explain/whatif.h"

namespace latsim::explain {
namespace {

Row row(const std::string& kind, const std::string& name) {
  Row r;
  r.kind = kind;
  r.name = name;
  r.label = kind + " " + name;
  r.ps = 1000;
  return r;
}

std::vector<std::string> sets(const std::vector<WhatIf>& plan) {
  std::vector<std::string> v;
  for (const WhatIf& w : plan) v.push_back(w.set);
  return v;
}

TEST(WhatIfPlan, IdeDmaGetsBothSwitchesAndCodeNone) {
  Explained e;
  e.rows = {row("bus_master", "ide"), row("code", "journal_getblk"), row("bus_master", "ide")};
  const std::vector<WhatIf> plan = plan_whatifs(e, 5);
  EXPECT_EQ(sets(plan), (std::vector<std::string>{"mechanisms.bus_master_holdoff=false",
                                                  "kernel.hdparm.dma=off", ""}));
  EXPECT_EQ(plan[2].cause, "code journal_getblk");  // said in the report: no switch for it
}

}  // namespace
}  // namespace latsim::explain
