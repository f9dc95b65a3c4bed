// Paths into metrics.json, the one syntax of `latsim check`, `sweep` and `sweep-merge`.
#include "tools/metrics/metric_path.h"

#include <gtest/gtest.h>

namespace {

using namespace latsim::metrics;
using nlohmann::json;

const json kMetrics = json::parse(R"({
  "latency_tracer": {"max_us": 3996, "threshold_us": 500},
  "cpus": [{"spin_us": 1.5}, {"spin_us": 2.25, "nmis": 30}],
  "irqs": {"14": {"count": 7}},
  "workloads": {"cyclictest": {"max_us": 812}},
  "scenario": "disk-dma-kernel-build"
})");

double value_at(const std::string& path) {
  std::string why;
  const auto p = parse_metric_path(path, why);
  EXPECT_TRUE(p) << why;
  if (!p) return -1;
  const auto v = metric_value(kMetrics, *p, why);
  EXPECT_TRUE(v) << why;
  return v ? *v : -1;
}

std::string error_at(const std::string& path) {
  std::string why;
  const auto p = parse_metric_path(path, why);
  if (!p) return "parse: " + why;
  const auto v = metric_value(kMetrics, *p, why);
  EXPECT_FALSE(v) << path << " gave " << *v;
  return why;
}

std::string canonical(const std::string& path) {
  std::string why;
  const auto p = parse_metric_path(path, why);
  return p ? p->text : "parse: " + why;
}

TEST(MetricPath, DotsIndexArraysAndNameKeys) {
  EXPECT_EQ(value_at("latency_tracer.max_us"), 3996);
  EXPECT_EQ(value_at("cpus.1.nmis"), 30);
  EXPECT_EQ(value_at("cpus.0.spin_us"), 1.5);
  EXPECT_EQ(value_at("irqs.14.count"), 7);  // an object's key of digits
  EXPECT_EQ(value_at("workloads.cyclictest.max_us"), 812);
}

TEST(MetricPath, BracketsAreAnAliasStoredDotted) {
  EXPECT_EQ(value_at("cpus[1].spin_us"), 2.25);
  EXPECT_EQ(canonical("cpus[1].spin_us"), "cpus.1.spin_us");
  EXPECT_EQ(canonical("a[0][2]"), "a.0.2");
  EXPECT_EQ(canonical("cpus.1.spin_us"), "cpus.1.spin_us");
}

TEST(MetricPath, MissingOrNotANumberSaysWhatAndTheNearest) {
  EXPECT_EQ(error_at("latency_tracer.max"),
            "latency_tracer has no key `max` (has: max_us, threshold_us); did you mean "
            "`latency_tracer.max_us`?");
  EXPECT_EQ(error_at("cpus.2.spin_us"),
            "cpus is an array of 2 entries, no entry `2`; did you mean `cpus.0.spin_us`?");
  EXPECT_EQ(error_at("cpus.99999999999999999999.nmis"),
            "cpus is an array of 2 entries, no entry `99999999999999999999`");
  EXPECT_EQ(error_at("scenario"), "scenario is a string, not a number");
  EXPECT_EQ(error_at("latency_tracer"), "latency_tracer is an object, not a number");
  EXPECT_EQ(error_at("latency_tracer[0]"),
            "latency_tracer has no key `0` (has: max_us, threshold_us)");
  EXPECT_EQ(error_at("nope.x"),
            "metrics.json has no key `nope` (has: cpus, irqs, latency_tracer, scenario, "
            "workloads)");
  EXPECT_EQ(error_at("scenario.x"), "scenario is a string, it has no key `x`");
}

TEST(MetricPath, MalformedPathsAreRejected) {
  EXPECT_EQ(error_at(""), "parse: empty metric path");
  EXPECT_EQ(error_at("a..b"), "parse: `a..b`: empty key between dots");
  EXPECT_EQ(error_at("a."), "parse: `a.`: ends with `.`");
  EXPECT_EQ(error_at("a[0]."), "parse: `a[0].`: ends with `.`");
  EXPECT_EQ(error_at("cpus[x]"),
            "parse: `cpus[x]`: an array index is [N] with N a number from 0 to 999999999");
  EXPECT_EQ(error_at("cpus[0]x"), "parse: `cpus[0]x`: expected `.` or `[` after `]`");
  EXPECT_EQ(error_at("cpus]0"), "parse: `cpus]0`: `]` without `[`");
}

TEST(MetricPath, ListsAreCanonicalWithoutDuplicates) {
  std::string why;
  const auto l = parse_metric_list(" cpus[0].spin_us, cpus.0.spin_us,latency_tracer.max_us", why);
  ASSERT_TRUE(l) << why;
  ASSERT_EQ(l->size(), 2u);
  EXPECT_EQ((*l)[0].text, "cpus.0.spin_us");
  EXPECT_EQ((*l)[1].text, "latency_tracer.max_us");
  EXPECT_FALSE(parse_metric_list("a,,b", why));
  EXPECT_EQ(why, "empty metric path");
}

TEST(MetricPath, EveryNumberHasAPath) {
  EXPECT_EQ(
      metric_paths(kMetrics),
      (std::vector<std::string>{"cpus.0.spin_us", "cpus.1.nmis", "cpus.1.spin_us", "irqs.14.count",
                                "latency_tracer.max_us", "latency_tracer.threshold_us",
                                "workloads.cyclictest.max_us"}));
  EXPECT_EQ(nearest_metric(kMetrics, "workloads.cyclictest.max_usec"),
            "workloads.cyclictest.max_us");
  EXPECT_EQ(nearest_metric(kMetrics, "something.else.entirely"), "");
}

}  // namespace
