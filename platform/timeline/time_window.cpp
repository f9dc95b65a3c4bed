#include "platform/timeline/time_window.h"
#include <cmath>
#include <optional>
#include <stdexcept>
#include "platform/scenario_schema.h"

namespace latsim::platform::timeline {
namespace {

// Far past any run, and within 64 bits of picoseconds.
constexpr double kMaxSeconds = 1e6;

// Picoseconds from "12.3s", "500ms", "250us", "40ns" or plain seconds.
uint64_t parse_time_ps(const std::string& text, const std::string& whole) {
  const std::optional<double> v = parse_duration(text);
  if (!v || !std::isfinite(*v) || *v < 0 || *v > kMaxSeconds)
    throw std::invalid_argument("bad time window '" + whole +
                                "': expected A..B with times such as 12.3s, 500ms, 250us");
  return uint64_t(std::llround(*v * 1e12));
}

}  // namespace

TimeWindow parse_window(const std::string& text) {
  TimeWindow w;
  if (text.empty()) return w;
  const auto dots = text.find("..");
  if (dots == std::string::npos)
    throw std::invalid_argument("bad time window '" + text +
                                "': expected A..B with times such as 12.3s..12.4s, or max:SPAN "
                                "such as max:100ms");
  w.from_ps = parse_time_ps(text.substr(0, dots), text);
  w.to_ps = parse_time_ps(text.substr(dots + 2), text);
  if (w.to_ps <= w.from_ps)
    throw std::invalid_argument("bad time window '" + text + "': its end must follow its start");
  return w;
}

uint64_t parse_span_ps(const std::string& text) { return parse_time_ps(text, text); }

WindowSpec parse_window_spec(const std::string& text) {
  WindowSpec spec;
  if (text.rfind("max:", 0) != 0) {
    spec.fixed = parse_window(text);
    return spec;
  }
  spec.around_max_ps = parse_span_ps(text.substr(4));
  if (spec.around_max_ps == 0)
    throw std::invalid_argument("bad time window '" + text + "': empty span");
  return spec;
}

TimeWindow window_around(uint64_t t_ps, uint64_t span_ps) {
  TimeWindow w;
  w.from_ps = t_ps > span_ps / 2 ? t_ps - span_ps / 2 : 0;
  w.to_ps = w.from_ps + span_ps;
  return w;
}

}  // namespace latsim::platform::timeline
