#pragma once
// Helpers for the parameter tables device models declare beside their code
// (common/params.h): members whose C++ type is not the key's value type, enums
// spelled as words, and the IRQ a PCI INTx# is steered to.
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/params.h"

namespace latsim::knobs {

// A key over a member held as another type than the key's value: `As` is what the
// Value carries (a uint64_t member of an integer key travels as int64_t).
template <class Target, class As, class Ref>
params::Key<Target> bind_as(params::KeySpec spec, Ref ref) {
  params::Key<Target> key;
  key.spec = std::move(spec);
  key.set = [ref](Target& t, const params::Value& v) {
    As a{};
    params::assign(a, v);
    auto& m = ref(t);
    m = static_cast<std::decay_t<decltype(m)>>(a);
  };
  key.get = [ref](const Target& t) {
    return params::to_value(static_cast<As>(ref(const_cast<Target&>(t))));
  };
  return key;
}

// An enum member spelled as the words in `names` (in the order they are accepted).
template <class Target, class E>
params::Key<Target> bind_enum(params::KeySpec spec, E Target::*m,
                              std::vector<std::pair<E, std::string>> names) {
  spec.type = params::ValueType::Enum;
  spec.accepted.clear();
  for (const auto& n : names) spec.accepted.push_back(n.second);
  params::Key<Target> key;
  key.spec = std::move(spec);
  key.set = [m, names](Target& t, const params::Value& v) {
    for (const auto& [e, word] : names)
      if (word == std::get<std::string>(v)) t.*m = e;
  };
  key.get = [m, names](const Target& t) -> params::Value {
    for (const auto& [e, word] : names)
      if (e == t.*m) return word;
    return std::string("?");
  };
  return key;
}

// An ISA IRQ the south bridge can steer a PCI INTx# to (not 0-2, 6, 8, 13, 14).
inline params::KeySpec intx_irq(std::string path, std::string doc) {
  return params::with_unit(
      params::int_choice(std::move(path), {"3", "4", "5", "7", "9", "10", "11", "12", "15"},
                         std::move(doc)),
      "IRQ");
}

}  // namespace latsim::knobs
