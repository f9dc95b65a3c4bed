#include "workloads/cpu_list.h"

#include <cctype>

namespace latsim::workloads {

std::optional<std::vector<int>> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  size_t i = 0;
  auto number = [&]() -> std::optional<int> {
    if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) return {};
    int v = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
      if ((v = v * 10 + (text[i++] - '0')) > 4096) return {};
    return v;
  };
  for (;;) {
    const auto a = number();
    if (!a) return {};
    auto b = a;
    if (i < text.size() && text[i] == '-') ++i, b = number();
    if (!b || *b < *a) return {};
    for (int c = *a; c <= *b; ++c) cpus.push_back(c);
    if (i == text.size()) return cpus;
    if (text[i++] != ',') return {};
  }
}

}  // namespace latsim::workloads
