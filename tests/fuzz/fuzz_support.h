#pragma once
// Shared by the libFuzzer targets: the repository's scenarios as base texts, and the
// rule every target enforces: a loader may reject input only with its own error type.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace latsim::fuzz {

// Every scenario under scenarios/ (sorted by path), read once.
const std::vector<std::string>& base_scenarios();

// The fuzzer's bytes as text, and split at newlines (empty lines dropped).
std::string as_text(const uint8_t* data, size_t size);
std::vector<std::string> lines_of(const std::string& text);

}  // namespace latsim::fuzz
