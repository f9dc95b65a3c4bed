#pragma once
// cyclictest -a CPUSET: "1", "0,1", "0-1" (as rt-tests' parse_cpumask reads it).
#include <optional>
#include <string>
#include <vector>

namespace latsim::workloads {

// The CPUs a list names, in order; nullopt when the text is not such a list.
std::optional<std::vector<int>> parse_cpu_list(const std::string& text);

}  // namespace latsim::workloads
