// The frontier's order, the spec's errors and pareto.svg, on hand-made values.
#include "tools/sweep/pareto.h"
#include <gtest/gtest.h>

#include "tools/sweep/grid.h"
#include "tools/sweep/svg_plot.h"

namespace latsim::sweep {
namespace {

using tune::Sense;

TEST(ParetoOrder, OptimalSettingsByTheFirstObjectiveBestFirst) {
  const std::vector<std::vector<double>> v{{2300, 40}, {600, 20}, {900, 15}, {1200, 30}};
  const std::vector<bool> opt{true, true, false, true};
  EXPECT_EQ(frontier_order(v, opt, {Sense::Min, Sense::Max}), (std::vector<size_t>{1, 3, 0}));
  // Maximising the first objective puts its greatest first.
  EXPECT_EQ(frontier_order(v, opt, {Sense::Max, Sense::Max}), (std::vector<size_t>{0, 3, 1}));
}

TEST(ParetoSpec, BadSpecsSayWhatIsExpected) {
  auto error_of = [](const std::string& text, std::optional<double> q) {
    try {
      parse_pareto(text, q);
    } catch (const GridError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of("latency_tracer.max_us", std::nullopt).find("METRIC:min or METRIC:max"),
            std::string::npos);
  EXPECT_NE(error_of("latency_tracer.max_us:min", std::nullopt).find("two or three metrics"),
            std::string::npos);
  EXPECT_NE(error_of("a:min,a:max", std::nullopt).find("named twice"), std::string::npos);
  EXPECT_NE(error_of("a:min,b:max", 1.5).find("from 0 (best seed) to 1"), std::string::npos);
  EXPECT_NE(error_of("", 0.5).find("--pareto-quantile needs --pareto"), std::string::npos);
  const auto ok = parse_pareto("latency_tracer.max_us:min, disk.read_mb_s:max", 0.9);
  EXPECT_EQ(ok.text(), "latency_tracer.max_us:min,disk.read_mb_s:max");
  EXPECT_EQ(ok.across(5), "0.9 quantile of 5 seeds (0: best, 1: worst)");
  EXPECT_EQ(parse_pareto("a:min,b:max", std::nullopt).across(5), "worst of 5 seeds");
}

ParetoPlot plot() {
  ParetoPlot p;
  p.title = "t";
  p.axis_labels = {"latency_tracer.max_us (µs, worst of 5 seeds)", "disk.read_mb_s (MB/s)"};
  p.lower_better = {true, false};
  p.labels = {"max_sectors_kb=128", "max_sectors_kb=16", "max_sectors_kb=32", "max_sectors_kb=64"};
  p.values = {{2300, 40}, {600, 20}, {900, 15}, {1200, 30}};
  p.optimal = {true, true, false, true};
  p.order = {1, 3, 0};
  return p;
}

TEST(ParetoSvg, JoinsTheFrontierInOrderAndLabelsItsSettings) {
  const std::string svg = pareto_svg(plot());
  // The staircase: from 600/20 right to 1200 then up to 30, right to 2300 then up to 40.
  const auto path = svg.find("<path class=\"frontier\"");
  ASSERT_NE(path, std::string::npos) << svg;
  const std::string d = svg.substr(path, svg.find("/>", path) - path);
  EXPECT_EQ(std::count(d.begin(), d.end(), 'L'), 4) << d;
  for (const char* label : {">max_sectors_kb=16<", ">max_sectors_kb=64<", ">max_sectors_kb=128<"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  EXPECT_EQ(svg.find(">max_sectors_kb=32<"), std::string::npos);  // dominated: no label
  size_t dominated = 0, optimal = 0;
  for (size_t at = 0; (at = svg.find("<circle class=\"", at)) != std::string::npos; ++at)
    (svg.compare(at + 15, 9, "dominated") == 0 ? dominated : optimal)++;
  EXPECT_EQ(optimal, 3u);
  EXPECT_EQ(dominated, 1u);
  EXPECT_NE(svg.find("worst of 5 seeds"), std::string::npos);
  EXPECT_NE(svg.find("← lower is better"), std::string::npos);
  EXPECT_NE(svg.find("higher is better ↑"), std::string::npos);
  EXPECT_NE(svg.find("↖ better"), std::string::npos);
  EXPECT_EQ(svg, pareto_svg(plot()));  // deterministic
}

TEST(ParetoSvg, AThirdObjectiveSizesTheDotsAndNeedsNoStaircase) {
  ParetoPlot p = plot();
  p.axis_labels.push_back("ticks.lost");
  p.lower_better.push_back(true);
  for (auto& v : p.values) v.push_back(v[0] / 100);
  const std::string svg = pareto_svg(p);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
  EXPECT_NE(svg.find("dot size: ticks.lost, larger is better"), std::string::npos);
  EXPECT_NE(svg.find("max_sectors_kb=16 (6)"), std::string::npos);
}

}  // namespace
}  // namespace latsim::sweep
