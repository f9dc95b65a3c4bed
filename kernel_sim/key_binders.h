#pragma once
// Scenario keys whose YAML spelling differs from the member the kernel reads: a 0/1
// /proc switch held as a bool, a two-word choice held as a bool, a count held unsigned.
#include <cstdint>
#include <string>
#include "common/params.h"

namespace latsim::kernel {

// A 0/1 switch (ValueType::Switch) into a bool member.
template <class T>
params::Key<T> bind_switch(params::KeySpec spec, bool T::*m) {
  return params::bind_as<T, int64_t>(std::move(spec), [m](T& t) -> bool& { return t.*m; });
}

// A choice of two words (ValueType::Enum) into a bool member: true is `when_true`.
template <class T>
params::Key<T> bind_flag(params::KeySpec spec, bool T::*m, const std::string& when_true) {
  std::vector<std::pair<bool, std::string>> names;
  for (const auto& word : spec.accepted) names.push_back({word == when_true, word});
  return params::bind_enum(std::move(spec), m, std::move(names));
}

// An integer key (ValueType::Int with a non-negative range) into an unsigned member.
template <class T, class U>
params::Key<T> bind_unsigned(params::KeySpec spec, U T::*m) {
  return params::bind_as<T, int64_t>(std::move(spec), [m](T& t) -> U& { return t.*m; });
}

}  // namespace latsim::kernel
