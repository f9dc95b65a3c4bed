#include "tools/check/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace latsim::check {

namespace {

// Display width of UTF-8 text (every code point one column: enough for ± ≥ ≤).
size_t width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string cell(std::string s) {
  for (auto& c : s)
    if (c == '|' || c == '\n') c = c == '|' ? '/' : ' ';
  return s;
}

}  // namespace

bool HypothesisResult::passed() const {
  return std::all_of(rows.begin(), rows.end(), [](const Row& r) {
    return r.verdict == Verdict::Pass || r.verdict == Verdict::KnownMiss;
  });
}

std::string verdict_table(const std::vector<Row>& rows) {
  const std::vector<std::string> head{"hypothesis", "case",     "metric",
                                      "expected",   "measured", "verdict"};
  std::vector<std::vector<std::string>> cells;
  for (const auto& r : rows)
    cells.push_back({cell(r.hypothesis), cell(r.case_name), cell(r.metric), cell(r.expected),
                     cell(r.measured), verdict_text(r.verdict)});
  std::vector<size_t> w;
  for (const auto& h : head) w.push_back(width(h));
  for (const auto& c : cells)
    for (size_t i = 0; i < c.size(); ++i) w[i] = std::max(w[i], width(c[i]));
  auto line = [&](const std::vector<std::string>& c) {
    std::string s = "|";
    for (size_t i = 0; i < c.size(); ++i)
      s += " " + c[i] + std::string(w[i] - width(c[i]), ' ') + " |";
    return s + "\n";
  };
  std::string out = line(head);
  std::string rule = "|";
  for (size_t x : w) rule += std::string(x + 2, '-') + "|";
  out += rule + "\n";
  for (const auto& c : cells) out += line(c);
  return out;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\t':
        out += "&#9;";
        break;
      default:
        if (c >= 0x20 || c == '\r') out += char(c);  // other control characters: not XML
    }
  }
  return out;
}

std::string junit_xml(const std::vector<HypothesisResult>& results) {
  auto count = [](const std::vector<Row>& rows, Verdict v) {
    return size_t(
        std::count_if(rows.begin(), rows.end(), [v](const Row& r) { return r.verdict == v; }));
  };
  size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  for (const auto& h : results) {
    tests += h.rows.size();
    failures += count(h.rows, Verdict::Fail);
    errors += count(h.rows, Verdict::Error);
    skipped += count(h.rows, Verdict::KnownMiss);
  }
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += fmt::format(
      "<testsuites name=\"latsim check\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
      "skipped=\"{}\">\n",
      tests, failures, errors, skipped);
  for (const auto& h : results) {
    const Hypothesis& hy = *h.hypothesis;
    x += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
        "file=\"{}\">\n",
        xml_escape(hy.name), h.rows.size(), count(h.rows, Verdict::Fail),
        count(h.rows, Verdict::Error), count(h.rows, Verdict::KnownMiss), xml_escape(hy.file));
    x += "    <properties>\n";
    x += fmt::format("      <property name=\"claim\" value=\"{}\"/>\n", xml_escape(hy.claim));
    x += fmt::format("      <property name=\"source\" value=\"{}\"/>\n", xml_escape(hy.source));
    x += fmt::format("      <property name=\"base\" value=\"{}\"/>\n", xml_escape(hy.base));
    for (const auto& s : h.overrides)
      x += fmt::format("      <property name=\"set\" value=\"{}\"/>\n", xml_escape(s));
    x += "    </properties>\n";
    for (const auto& r : h.rows) {
      const std::string name = fmt::format("{}: {}", r.metric, r.expected);
      x += fmt::format("    <testcase classname=\"{}.{}\" name=\"{}\"", xml_escape(hy.name),
                       xml_escape(r.case_name), xml_escape(name));
      if (r.verdict == Verdict::Pass) {
        x += "/>\n";
        continue;
      }
      if (r.verdict == Verdict::KnownMiss) {  // expected to fail: reported, not a failure
        x += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                         xml_escape(fmt::format("known miss: measured {}, expected {}: {}",
                                                r.measured, r.expected, r.known_miss)));
        continue;
      }
      const char* tag = r.verdict == Verdict::Fail ? "failure" : "error";
      const std::string msg = r.verdict == Verdict::Fail
                                  ? fmt::format("measured {}, expected {}", r.measured, r.expected)
                                  : r.detail;
      x += ">\n";
      x +=
          fmt::format("      <{} message=\"{}\" type=\"{}\">{}&#10;{}</{}>\n", tag, xml_escape(msg),
                      verdict_text(r.verdict), xml_escape(r.location), xml_escape(r.detail), tag);
      x += "    </testcase>\n";
    }
    x += "  </testsuite>\n";
  }
  x += "</testsuites>\n";
  return x;
}

namespace {

// The accepted band in numbers: low/high (null when unbounded), and approx ± tolerance.
nlohmann::json band_json(const Bounds& b) {
  auto finite = [](double v) {
    return std::isinf(v) ? nlohmann::json(nullptr) : nlohmann::json(v);
  };
  nlohmann::json j = {{"low", finite(b.lo())}, {"high", finite(b.hi())}};
  if (b.approx) {
    j["approx"] = *b.approx;
    j["tolerance"] = b.tolerance;
    j["tolerance_unit"] = b.relative ? "%" : "metric";
  }
  return j;
}

// A row's numbers: what was judged, each seed's, each compared side's.
void add_numbers(const Row& r, nlohmann::json& j) {
  if (r.band) j["band"] = band_json(*r.band);
  j["value"] = r.value ? nlohmann::json(*r.value) : nlohmann::json(nullptr);
  if (!r.seeds.empty()) j["seeds"] = r.seeds;
  if (!r.per_seed.empty()) j["per_seed"] = r.per_seed;
  if (!r.compared.empty()) {
    nlohmann::json sides = nlohmann::json::array();
    for (const auto& [name, values] : r.compared)
      sides.push_back({{"name", name}, {"values", values}});
    j["compared"] = sides;
  }
}

}  // namespace

nlohmann::json verdicts_json(const HypothesisResult& result) {
  const Hypothesis& h = *result.hypothesis;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : result.rows) {
    rows.push_back({{"case", r.case_name},
                    {"metric", r.metric},
                    {"expected", r.expected},
                    {"measured", r.measured},
                    {"verdict", verdict_text(r.verdict)},
                    {"detail", r.detail},
                    {"location", r.location},
                    {"kind", row_kind_text(r.kind)}});
    add_numbers(r, rows.back());
    if (!r.known_miss.empty()) rows.back()["known_miss"] = r.known_miss;
    if (r.promoted()) rows.back()["promote"] = true;  // a known miss that held
  }
  nlohmann::json j = {{"schema_version", 1}, {"hypothesis", h.name},
                      {"file", h.file},      {"claim", h.claim},
                      {"source", h.source},  {"base", h.base},
                      {"seeds", h.seeds},    {"verdict", result.passed() ? "PASS" : "FAIL"},
                      {"rows", rows}};
  if (!result.overrides.empty()) j["set"] = result.overrides;  // a counterfactual's verdicts
  return j;
}

}  // namespace latsim::check
