#pragma once
// Scenario keys whose YAML spelling differs from the member the kernel reads: a 0/1
// /proc switch held as a bool, a two-word choice held as a bool, a count held unsigned.
// (common/params.h's bind() maps each ValueType to the member of its own shape.)
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include "common/params.h"

namespace latsim::kernel {

// A 0/1 switch (ValueType::Switch) into a bool member.
template <class T>
params::Key<T> bind_switch(params::KeySpec spec, bool T::*m) {
  params::Key<T> key;
  key.spec = std::move(spec);
  key.set = [m](T& t, const params::Value& v) { t.*m = std::get<int64_t>(v) != 0; };
  key.get = [m](const T& t) -> params::Value { return int64_t{t.*m ? 1 : 0}; };
  return key;
}

// A choice of two words (ValueType::Enum) into a bool member: true is `when_true`.
template <class T>
params::Key<T> bind_flag(params::KeySpec spec, bool T::*m, const std::string& when_true) {
  const std::string when_false = spec.accepted.at(spec.accepted.at(0) == when_true ? 1 : 0);
  params::Key<T> key;
  key.spec = std::move(spec);
  key.set = [m, when_true](T& t, const params::Value& v) {
    t.*m = std::get<std::string>(v) == when_true;
  };
  key.get = [m, when_true, when_false](const T& t) -> params::Value {
    return t.*m ? when_true : when_false;
  };
  return key;
}

// An integer key (ValueType::Int with a non-negative range) into an unsigned member.
template <class T, class U>
params::Key<T> bind_unsigned(params::KeySpec spec, U T::*m) {
  params::Key<T> key;
  key.spec = std::move(spec);
  key.set = [m](T& t, const params::Value& v) { t.*m = static_cast<U>(std::get<int64_t>(v)); };
  key.get = [m](const T& t) -> params::Value { return static_cast<int64_t>(t.*m); };
  return key;
}

}  // namespace latsim::kernel
