// Writes what tools/fuzz feeds the targets from the schema itself, so that a new key is
// fuzzed without editing anything here:
//   fuzz_seeds DICT SET_CORPUS_DIR
// DICT: a libFuzzer dictionary of every key path, path segment and accepted value;
// SET_CORPUS_DIR: one seed per parameter, "<base byte>KEY=DEFAULT".
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>

#include "platform/scenario_schema.h"

namespace {

namespace fs = std::filesystem;
using latsim::platform::ParamRow;

// "workload[].cyclictest.threads" -> "workload.0.threads", as --set spells it.
std::string set_key(const ParamRow& row) {
  const std::string prefix = "workload[].";
  if (row.key.rfind(prefix, 0) != 0) return row.key;
  return "workload.0." + row.key.substr(row.key.find('.', prefix.size()) + 1);
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += char(c);
  }
  return out + "\"";
}

std::set<std::string> dictionary_words() {
  std::set<std::string> words;
  for (const auto& key : latsim::platform::scenario_keys()) {
    words.insert(key.spec.path);
    for (const auto& seg : latsim::platform::split_key_path(key.spec.path)) words.insert(seg);
    for (const auto& v : key.spec.accepted) words.insert(v);
  }
  for (const auto& row : latsim::platform::param_rows()) {
    words.insert(set_key(row));
    words.insert(row.key.substr(row.key.rfind('.') + 1));
  }
  for (const auto& kind : latsim::platform::workload_kinds()) words.insert(kind.name);
  return words;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  if (argc != 3) {
    std::cerr << "usage: fuzz_seeds DICT SET_CORPUS_DIR\n";
    return 2;
  }
  std::ofstream dict(argv[1]);
  for (const auto& w : dictionary_words())
    if (!w.empty() && w.size() <= 64) dict << quoted(w) << "\n";
  fs::create_directories(argv[2]);
  int n = 0;
  for (const auto& row : latsim::platform::param_rows()) {
    std::ofstream seed(fs::path(argv[2]) / ("param-" + std::to_string(n)), std::ios::binary);
    seed << char(n++) << set_key(row) << "=" << row.default_value << "\n";
  }
  return dict && n > 0 ? 0 : 1;
}
