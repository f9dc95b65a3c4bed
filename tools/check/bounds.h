#pragma once
// What a measured number must satisfy in a hypothesis: `min`/`max` (inclusive), or
// `approx` with a `tolerance` that is relative ("35%") or absolute (in the metric's unit).
#include <optional>
#include <string>

namespace latsim::check {

struct Bounds {
  std::optional<double> min, max;
  std::optional<double> approx;
  double tolerance = 0;   // percent when `relative`, else in the metric's unit
  bool relative = false;  // "35%"

  bool empty() const { return !min && !max && !approx; }
  // The accepted interval (approx ± tolerance, or [min, max]); unbounded sides are +-inf.
  double lo() const;
  double hi() const;
  bool holds(double v) const { return v >= lo() && v <= hi(); }
  // "2305 ± 35% (1498.25..3111.75)", "≥ 50", "≤ 3", "2.5..6"
  std::string text() const;
};

// A number as the verdict table prints it: the shortest text that reads back the same
// ("3996", "3.94", "0.125"), "inf"/"-inf" for the infinities.
std::string number_text(double v);

}  // namespace latsim::check
