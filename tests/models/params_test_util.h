#pragma once
// Checks shared by the device families' parameter tables (common/params.h): each key
// sets and gets its own member, and its default prints as a value the key accepts.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "common/params.h"

namespace latsim::testing {

// A value of `spec` other than `v`: the other end of its range, another accepted word.
inline params::Value other_value(const params::KeySpec& spec, const params::Value& v) {
  using params::ValueType;
  switch (spec.type) {
    case ValueType::Int:
    case ValueType::Switch: {
      const auto hi = int64_t(spec.type == ValueType::Switch ? 1 : spec.max);
      const auto lo = int64_t(spec.min);
      return std::get<int64_t>(v) == hi ? lo : hi;
    }
    case ValueType::Double:
      return std::get<double>(v) == spec.max ? spec.min : spec.max;
    case ValueType::Bool:
    case ValueType::OnOff:
      return !std::get<bool>(v);
    case ValueType::Enum:
      return spec.accepted[spec.accepted.front() == std::get<std::string>(v) ? 1 : 0];
    case ValueType::IntEnum: {
      const std::string now = std::to_string(std::get<int64_t>(v));
      return int64_t(std::stoll(spec.accepted[spec.accepted.front() == now ? 1 : 0]));
    }
    default:
      ADD_FAILURE() << spec.path << ": no other value for this type";
      return v;
  }
}

// Every key of `table`: its default parses back to itself, and setting another value
// changes what it gets and nothing any other key gets.
template <class P>
void expect_keys_round_trip(const params::Table<P>& table) {
  ASSERT_FALSE(table.empty());
  for (const auto& key : table) {
    SCOPED_TRACE(key.spec.path);
    EXPECT_FALSE(key.spec.doc.empty());
    EXPECT_FALSE(key.spec.source.empty());
    P p;
    const params::Value def = key.get(p);
    const params::ParsedValue back =
        params::parse_value(key.spec, params::format_value(key.spec, def));
    ASSERT_TRUE(back.value) << back.message;
    EXPECT_EQ(*back.value, def);
    const params::Value other = other_value(key.spec, def);
    ASSERT_NE(other, def);
    key.set(p, other);
    EXPECT_EQ(key.get(p), other);
    for (const auto& k : table) {
      if (&k == &key) continue;
      EXPECT_EQ(k.get(p), k.get(P{})) << "also changed " << k.spec.path;
    }
  }
}

// The key at `path` (a failure if there is none).
template <class P>
const params::Key<P>& key_at(const params::Table<P>& table, const std::string& path) {
  const auto it = std::find_if(table.begin(), table.end(),
                               [&](const params::Key<P>& k) { return k.spec.path == path; });
  if (it == table.end()) {
    ADD_FAILURE() << "no key " << path;
    return table.front();
  }
  return *it;
}

// `p` with the key at `path` set from its text, as the scenario loader would.
template <class P>
P with(P p, const params::Table<P>& table, const std::string& path, const std::string& text) {
  const auto& key = key_at(table, path);
  const params::ParsedValue v = params::parse_value(key.spec, text);
  if (!v.value) {
    ADD_FAILURE() << path << ": " << v.message;
    return p;
  }
  key.set(p, *v.value);
  return p;
}

}  // namespace latsim::testing
