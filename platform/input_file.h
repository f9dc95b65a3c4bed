#pragma once
// A user's input file (a scenario, a hypothesis): read within bounds, parsed as one YAML
// document within bounds, and every problem in it reported as a compiler-style line.
// The bounds keep a hostile or mistaken file (a FIFO, /dev/zero, a "billion laughs" of
// aliases, a million-item list) from costing more than a moment and a few megabytes.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace latsim::platform {

inline constexpr size_t kMaxInputBytes = size_t{1} << 20;  // 1 MiB; scenarios are ~3 KB
inline constexpr size_t kMaxYamlNodes = 20'000;  // counting each alias in full; files hold ~300
inline constexpr size_t kMaxYamlListItems = 10'000;
inline constexpr size_t kMaxYamlDepth = 64;

struct Diagnostic {
  std::string location;  // "FILE:LINE:COLUMN" (1-based), "FILE" or "--set KEY=VALUE"
  std::string key;       // dotted key path; empty for YAML syntax and file errors
  std::string message;   // e.g. "300 is out of range (accepted: 0..255)"

  // "LOCATION: error: KEY: MESSAGE", control characters and bytes that are not UTF-8
  // escaped (\x1b): input text never reaches the terminal raw.
  std::string to_string() const;
};

// Problems with an input; what() is every diagnostic's to_string(), one per line.
class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// "FILE:LINE:COLUMN" of a YAML mark, or "FILE" for a null mark.
std::string location(const std::string& file, const YAML::Mark& mark);

// The whole text of `path`: a regular file (not a FIFO, device or directory) of at most
// kMaxInputBytes. `what` names it in messages ("scenario file"). Throws InputError.
std::string read_input_file(const std::string& path, const std::string& what);

// The one YAML document of `text` (a null node if it has none), within kMaxYamlNodes,
// kMaxYamlListItems and kMaxYamlDepth; `file` names it in messages. Throws InputError.
YAML::Node parse_yaml_document(const std::string& text, const std::string& file);

}  // namespace latsim::platform
