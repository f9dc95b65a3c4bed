#include "tests/fuzz/fuzz_support.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace latsim::fuzz {

const std::vector<std::string>& base_scenarios() {
  static const std::vector<std::string> texts = [] {
    std::vector<std::filesystem::path> paths;
    for (const auto& e : std::filesystem::directory_iterator(LATSIM_SOURCE_DIR "/scenarios"))
      if (e.path().extension() == ".yaml") paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    std::vector<std::string> out;
    for (const auto& p : paths) {
      std::ifstream in(p, std::ios::binary);
      std::ostringstream s;
      s << in.rdbuf();
      out.push_back(s.str());
    }
    return out;
  }();
  return texts;
}

std::string as_text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace latsim::fuzz

// libsystemc.so refers to sc_main; the loaders never elaborate, so it is never called.
extern "C" int sc_main(int, char*[]) { return 0; }
