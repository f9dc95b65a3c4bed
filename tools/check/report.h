#pragma once
// What `latsim check` prints and writes: the verdict table (a Markdown table, aligned, so
// it reads in a terminal and pastes into an issue), JUnit XML for CI, and verdicts.json.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/check/evaluate.h"

namespace latsim::check {

struct HypothesisResult {
  const Hypothesis* hypothesis = nullptr;
  std::vector<Row> rows;
  std::vector<std::string> overrides;  // check's --set, applied to every run
  bool passed() const;                 // every row holds or is a known miss
};

// | hypothesis | case | metric | expected | measured | verdict |, one line per row.
std::string verdict_table(const std::vector<Row>& rows);

// The same columns as a plain table at most `width` columns wide (0: no limit): the widest
// columns are narrowed and their cells wrapped at spaces onto more lines, words cut only
// when whole words cannot fit (the verdict column is never narrowed).
std::string fitted_table(const std::vector<Row>& rows, size_t width);

// One line per row: hypothesis, case, metric, expected, measured, verdict, value, low, high,
// kind, location, detail (RFC 4180 quoting; numbers empty when the row has none).
std::string verdicts_csv(const std::vector<Row>& rows);

// One <testsuite> per hypothesis, one <testcase> per row; FAIL is a <failure>, ERROR an
// <error>. No times or host names: the same runs give the same bytes.
std::string junit_xml(const std::vector<HypothesisResult>& results);

// The rows and the hypothesis's claim, source and verdict (deterministic).
nlohmann::json verdicts_json(const HypothesisResult& result);

// Text without the characters XML 1.0 forbids (control characters but tab, CR and LF),
// which no escaping can hold; pugixml escapes the rest.
std::string xml_text(const std::string& s);

}  // namespace latsim::check
