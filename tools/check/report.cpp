#include "tools/check/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <pugixml.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

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

namespace {

// A word longer than this may be cut to fit a column.
constexpr size_t kMaxWord = 24;

const std::vector<std::string> kColumns{"hypothesis", "case",     "metric",
                                        "expected",   "measured", "verdict"};

std::vector<std::string> cells_of(const Row& r) {
  return {r.hypothesis, r.case_name, r.metric, r.expected, r.measured, verdict_text(r.verdict)};
}

// The first `n` code points of `s`, and the rest.
std::pair<std::string, std::string> split_at(const std::string& s, size_t n) {
  size_t i = 0, seen = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (seen++ == n) break;
  }
  return {s.substr(0, i), s.substr(i)};
}

// `text` in lines of at most `w` code points, broken at spaces (a longer word is cut).
std::vector<std::string> wrap(const std::string& text, size_t w) {
  std::vector<std::string> lines;
  std::string line;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t sp = text.find(' ', start);
    std::string word = text.substr(start, sp == std::string::npos ? sp : sp - start);
    start = sp == std::string::npos ? text.size() + 1 : sp + 1;
    if (!line.empty() && width(line) + 1 + width(word) <= w) {
      line += " " + word;
      continue;
    }
    if (!line.empty()) lines.push_back(line);
    while (width(word) > w) {
      auto [head, rest] = split_at(word, w);
      lines.push_back(head);
      word = rest;
    }
    line = word;
  }
  lines.push_back(line);
  return lines;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number_field(std::optional<double> v) {
  return v && std::isfinite(*v) ? fmt::format("{}", *v) : "";
}

}  // namespace

std::string fitted_table(const std::vector<Row>& rows, size_t limit) {
  std::vector<std::vector<std::string>> cells;
  for (const auto& r : rows) cells.push_back(cells_of(r));
  std::vector<size_t> w, least;
  for (const auto& h : kColumns) w.push_back(width(h));
  for (const auto& c : cells)
    for (size_t i = 0; i < c.size(); ++i) w[i] = std::max(w[i], width(c[i]));
  // A column narrows down to its longest word (at most 24) or its header; the verdict never.
  for (size_t i = 0; i < w.size(); ++i) {
    size_t word = width(kColumns[i]);
    for (const auto& c : cells)
      for (const auto& piece : wrap(c[i], kMaxWord)) word = std::max(word, width(piece));
    least.push_back(i + 1 == w.size() ? w[i] : std::min(w[i], word));
  }
  auto total = [&] {
    size_t t = 2 * (w.size() - 1);
    for (size_t x : w) t += x;
    return t;
  };
  // Narrow the widest column that may go, words whole; then, if that is not enough, cutting
  // words down to the headers.
  for (int pass = 0; pass < 2 && limit > 0; ++pass) {
    if (pass == 1)
      for (size_t i = 0; i + 1 < w.size(); ++i) least[i] = std::min(w[i], width(kColumns[i]));
    while (total() > limit) {
      size_t widest = w.size();
      for (size_t i = 0; i < w.size(); ++i)
        if (w[i] > least[i] && (widest == w.size() || w[i] > w[widest])) widest = i;
      if (widest == w.size()) break;  // as narrow as it goes
      --w[widest];
    }
  }
  auto lines = [&](const std::vector<std::string>& c) {
    std::vector<std::vector<std::string>> wrapped;
    size_t n = 1;
    for (size_t i = 0; i < c.size(); ++i) {
      wrapped.push_back(wrap(c[i], w[i]));
      n = std::max(n, wrapped.back().size());
    }
    std::string out;
    for (size_t k = 0; k < n; ++k) {
      std::string line;
      for (size_t i = 0; i < c.size(); ++i) {
        const std::string t = k < wrapped[i].size() ? wrapped[i][k] : "";
        line += (i ? "  " : "") + t + std::string(w[i] - width(t), ' ');
      }
      line.erase(line.find_last_not_of(' ') + 1);
      out += line + "\n";
    }
    return out;
  };
  std::string out = lines(kColumns);
  std::vector<std::string> rule;
  for (size_t x : w) rule.push_back(std::string(x, '-'));
  out += fmt::format("{}\n", fmt::join(rule, "  "));
  for (const auto& c : cells) out += lines(c);
  return out;
}

std::string verdicts_csv(const std::vector<Row>& rows) {
  std::string out =
      "hypothesis,case,metric,expected,measured,verdict,value,low,high,kind,location,detail\n";
  for (const auto& r : rows) {
    std::vector<std::string> f;
    for (const auto& c : cells_of(r)) f.push_back(csv_field(c));
    f.push_back(number_field(r.value));
    f.push_back(number_field(r.band ? std::optional<double>(r.band->lo()) : std::nullopt));
    f.push_back(number_field(r.band ? std::optional<double>(r.band->hi()) : std::nullopt));
    f.push_back(row_kind_text(r.kind));
    f.push_back(csv_field(r.location));
    f.push_back(csv_field(r.detail));
    out += fmt::format("{}\n", fmt::join(f, ","));
  }
  return out;
}

std::string xml_text(const std::string& s) {
  std::string out;
  for (unsigned char c : s)
    if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') out += char(c);
  return out;
}

namespace {

void attr(pugi::xml_node n, const char* name, const std::string& value) {
  n.append_attribute(name) = xml_text(value).c_str();
}

void attr(pugi::xml_node n, const char* name, size_t value) {
  n.append_attribute(name) = static_cast<unsigned long long>(value);
}

size_t count(const std::vector<Row>& rows, Verdict v) {
  return size_t(
      std::count_if(rows.begin(), rows.end(), [v](const Row& r) { return r.verdict == v; }));
}

// Tests, failures, errors and skipped (known misses) of `rows`, as attributes of `n`.
void counts(pugi::xml_node n, const std::vector<Row>& rows) {
  attr(n, "tests", rows.size());
  attr(n, "failures", count(rows, Verdict::Fail));
  attr(n, "errors", count(rows, Verdict::Error));
  attr(n, "skipped", count(rows, Verdict::KnownMiss));
}

void testcase(pugi::xml_node suite, const Hypothesis& hy, const Row& r) {
  pugi::xml_node c = suite.append_child("testcase");
  attr(c, "classname", hy.name + "." + r.case_name);
  attr(c, "name", fmt::format("{}: {}", r.metric, r.expected));
  if (r.verdict == Verdict::Pass) return;
  if (r.verdict == Verdict::KnownMiss) {  // expected to fail: reported, not a failure
    attr(c.append_child("skipped"), "message",
         fmt::format("known miss: measured {}, expected {}: {}", r.measured, r.expected,
                     r.known_miss));
    return;
  }
  pugi::xml_node f = c.append_child(r.verdict == Verdict::Fail ? "failure" : "error");
  attr(f, "message",
       r.verdict == Verdict::Fail ? fmt::format("measured {}, expected {}", r.measured, r.expected)
                                  : r.detail);
  attr(f, "type", verdict_text(r.verdict));
  f.text() = xml_text(r.location + "\n" + r.detail).c_str();
}

}  // namespace

std::string junit_xml(const std::vector<HypothesisResult>& results) {
  pugi::xml_document doc;
  pugi::xml_node decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  pugi::xml_node all = doc.append_child("testsuites");
  attr(all, "name", std::string("latsim check"));
  std::vector<Row> every;
  for (const auto& h : results) every.insert(every.end(), h.rows.begin(), h.rows.end());
  counts(all, every);
  for (const auto& h : results) {
    const Hypothesis& hy = *h.hypothesis;
    pugi::xml_node suite = all.append_child("testsuite");
    attr(suite, "name", hy.name);
    counts(suite, h.rows);
    attr(suite, "file", hy.file);
    pugi::xml_node props = suite.append_child("properties");
    auto property = [&](const char* name, const std::string& value) {
      pugi::xml_node p = props.append_child("property");
      attr(p, "name", std::string(name));
      attr(p, "value", value);
    };
    property("claim", hy.claim);
    property("source", hy.source);
    property("base", hy.base);
    for (const auto& s : h.overrides) property("set", s);
    for (const auto& r : h.rows) testcase(suite, hy, r);
  }
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
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
