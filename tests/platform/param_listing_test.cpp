// `latsim list params`: every scenario parameter with its default, unit and doc,
// and every platform.<device>.<param> carrying its unit (in its name or its type).
#include "platform/scenario_schema.h"

#include <gtest/gtest.h>
#include <set>
#include <sstream>

namespace latsim::platform {
namespace {

const ParamRow* find_row(const std::vector<ParamRow>& rows, const std::string& key) {
  for (const auto& r : rows)
    if (r.key == key) return &r;
  return nullptr;
}

TEST(ListParams, EveryScenarioKeyAndWorkloadParamIsARow) {
  const auto rows = param_rows();
  for (const auto& key : scenario_keys())
    EXPECT_NE(find_row(rows, key.spec.path), nullptr) << key.spec.path;
  for (const auto& kind : workload_kinds())
    for (const auto& p : kind.keys)
      EXPECT_NE(find_row(rows, "workload[]." + kind.name + "." + p.spec.path), nullptr);
  size_t n = scenario_keys().size();
  for (const auto& kind : workload_kinds()) n += kind.keys.size();
  EXPECT_EQ(rows.size(), n);
  for (const auto& r : rows) EXPECT_FALSE(r.doc.empty()) << r.key;
}

TEST(ListParams, RowsCarryTheDefaultPresetsValueAndUnit) {
  const auto rows = param_rows();
  const ParamRow* lt = find_row(rows, "platform.pci.latency_timer");
  ASSERT_NE(lt, nullptr);
  EXPECT_EQ(lt->default_value, "64");
  EXPECT_EQ(lt->unit, "clocks");
  const ParamRow* width = find_row(rows, "platform.pci.width_bits");
  ASSERT_NE(width, nullptr);
  EXPECT_EQ(width->default_value, "32");
  EXPECT_EQ(width->unit, "bits");
  EXPECT_NE(width->doc.find("(one of: 32, 64)"), std::string::npos);
  const ParamRow* irq = find_row(rows, "platform.sound.irq");
  ASSERT_NE(irq, nullptr);
  EXPECT_EQ(irq->default_value, "10");  // seed 000: /proc/irq/10/Ensoniq AudioPCI
  EXPECT_EQ(find_row(rows, "kernel.maxcpus")->default_value, "0");
  EXPECT_EQ(find_row(rows, "duration")->default_value, "30s");
}

TEST(ListParams, TableHasAHeaderAndOneAlignedLinePerRow) {
  const std::string t = params_table();
  std::istringstream in(t);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("KEY", 0), 0u);
  const size_t default_col = header.find("DEFAULT"), unit_col = header.find("UNIT"),
               doc_col = header.find("DOC");
  ASSERT_NE(default_col, std::string::npos);
  size_t lines = 0;
  bool saw_lt = false;
  for (std::string l; std::getline(in, l); ++lines) {
    ASSERT_GT(l.size(), doc_col) << l;
    EXPECT_NE(l[unit_col], ' ') << l;  // every row has a unit or "-"
    if (l.rfind("platform.pci.latency_timer ", 0) == 0) {
      saw_lt = true;
      EXPECT_EQ(l.substr(default_col, 3), "64 ");
      EXPECT_EQ(l.substr(unit_col, 7), "clocks ");
    }
  }
  EXPECT_EQ(lines, param_rows().size());
  EXPECT_TRUE(saw_lt);
}

TEST(ListParams, EveryPlatformParameterHasAUnitInItsNameOrType) {
  // Counts and choices carry theirs in the type; everything else names a unit.
  const std::set<ValueType> self_describing = {ValueType::Enum, ValueType::Bool, ValueType::OnOff,
                                               ValueType::Switch};
  for (const auto& key : scenario_keys()) {
    const std::string& p = key.spec.path;
    if (p.rfind("platform.", 0) != 0 || p == "platform.preset") continue;
    EXPECT_TRUE(!key.spec.unit.empty() || self_describing.count(key.spec.type)) << p;
  }
}

}  // namespace
}  // namespace latsim::platform
