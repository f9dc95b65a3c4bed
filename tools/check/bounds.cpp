#include "tools/check/bounds.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace latsim::check {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// The half-width of approx ± tolerance.
double half_width(const Bounds& b) {
  return b.relative ? std::fabs(*b.approx) * b.tolerance / 100.0 : b.tolerance;
}
}  // namespace

double Bounds::lo() const {
  if (approx) return *approx - half_width(*this);
  return min ? *min : -kInf;
}

double Bounds::hi() const {
  if (approx) return *approx + half_width(*this);
  return max ? *max : kInf;
}

std::string number_text(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  // Round to 6 significant decimals first so that 1498.2500000001 prints as 1498.25.
  const double r = std::stod(fmt::format("{:.6g}", v));
  return fmt::format("{}", r);
}

std::string Bounds::text() const {
  if (approx) {
    const std::string tol =
        relative ? fmt::format("{}%", number_text(tolerance)) : number_text(tolerance);
    return fmt::format("{} ± {} ({}..{})", number_text(*approx), tol, number_text(lo()),
                       number_text(hi()));
  }
  if (min && max) return fmt::format("{}..{}", number_text(*min), number_text(*max));
  if (min) return "≥ " + number_text(*min);
  if (max) return "≤ " + number_text(*max);
  return "any";
}

}  // namespace latsim::check
