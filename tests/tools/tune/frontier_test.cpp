// The Pareto frontier on hand-made points: domination, ties, a constant objective, missing
// values; a setting's value across seeds (worst or quantile); the objective list's syntax.
#include "tools/tune/frontier.h"
#include <gtest/gtest.h>
#include <cmath>

namespace latsim::tune {
namespace {

const std::vector<Sense> kMinMax{Sense::Min, Sense::Max};  // latency down, throughput up

TEST(Frontier, KeepsOnlyTheUndominated) {
  // (latency us, MB/s): 600/20 and 2300/40 trade off; 900/15 is beaten by 600/20.
  const auto f = pareto_optimal({{600, 20}, {2300, 40}, {900, 15}, {2300, 30}}, kMinMax);
  EXPECT_EQ(f, (std::vector<bool>{true, true, false, false}));
}

TEST(Frontier, EqualPointsAreAllOptimal) {
  const auto f = pareto_optimal({{600, 20}, {600, 20}, {700, 20}}, kMinMax);
  EXPECT_EQ(f, (std::vector<bool>{true, true, false}));
}

TEST(Frontier, AConstantObjectiveDecidesNothing) {
  // Throughput equal everywhere: only the lowest latency remains (and its tie).
  const auto f = pareto_optimal({{800, 30}, {600, 30}, {600, 30}, {900, 30}}, kMinMax);
  EXPECT_EQ(f, (std::vector<bool>{false, true, true, false}));
}

TEST(Frontier, AMissingValueIsNeverOptimalAndBeatsNone) {
  const double nan = std::nan("");
  const auto f = pareto_optimal({{nan, 99}, {600, 20}, {500, nan}}, kMinMax);
  EXPECT_EQ(f, (std::vector<bool>{false, true, false}));
}

TEST(Frontier, ThreeObjectives) {
  const std::vector<Sense> s{Sense::Min, Sense::Max, Sense::Min};
  const auto f = pareto_optimal({{1, 1, 5}, {1, 1, 4}, {2, 3, 9}}, s);
  EXPECT_EQ(f, (std::vector<bool>{false, true, true}));
}

TEST(FrontierAcrossSeeds, WorstIsTheMaxOfAMinimumAndTheMinOfAMaximum) {
  EXPECT_EQ(across_seeds({600, 2300, 900}, Sense::Min, std::nullopt), 2300);
  EXPECT_EQ(across_seeds({20, 40, 30}, Sense::Max, std::nullopt), 20);
}

TEST(FrontierAcrossSeeds, QuantileRunsFromTheBestSeedToTheWorst) {
  const std::vector<double> lat{100, 400, 200, 300, 500};
  EXPECT_EQ(across_seeds(lat, Sense::Min, 0.0), 100);
  EXPECT_EQ(across_seeds(lat, Sense::Min, 0.5), 300);
  EXPECT_EQ(across_seeds(lat, Sense::Min, 1.0), 500);
  EXPECT_EQ(across_seeds(lat, Sense::Min, 0.875), 450);  // between the 4th and 5th best
  // For throughput the worst seed is the slowest.
  const std::vector<double> mbs{10, 40, 20, 30, 50};
  EXPECT_EQ(across_seeds(mbs, Sense::Max, 1.0), 10);
  EXPECT_EQ(across_seeds(mbs, Sense::Max, 0.25), 40);
  EXPECT_TRUE(std::isnan(across_seeds({}, Sense::Min, std::nullopt)));
}

TEST(Frontier, ObjectivesParse) {
  std::string err;
  const auto o = parse_objectives("latency_tracer.max_us:min, cpus[0].stall_us.pci:max", err);
  ASSERT_TRUE(o) << err;
  ASSERT_EQ(o->size(), 2u);
  EXPECT_EQ((*o)[0].metric.text, "latency_tracer.max_us");
  EXPECT_EQ((*o)[0].sense, Sense::Min);
  EXPECT_EQ((*o)[1].metric.text, "cpus.0.stall_us.pci");
  EXPECT_EQ((*o)[1].sense, Sense::Max);
}

TEST(Frontier, BadObjectivesSayWhy) {
  std::string err;
  EXPECT_FALSE(parse_objectives("latency_tracer.max_us", err));
  EXPECT_NE(err.find("METRIC:min or METRIC:max"), std::string::npos) << err;
  EXPECT_FALSE(parse_objectives("a:min", err));
  EXPECT_NE(err.find("two or three metrics"), std::string::npos) << err;
  EXPECT_FALSE(parse_objectives("a:min,a:max", err));
  EXPECT_NE(err.find("named twice"), std::string::npos) << err;
  EXPECT_FALSE(parse_objectives("a:min,b:up", err));
  EXPECT_NE(err.find("`b:up`"), std::string::npos) << err;
}

}  // namespace
}  // namespace latsim::tune
