#pragma once
// The cache models key their state by the address of the object whose lines they are.
// When the object is freed its state must go too: an object later allocated at the same
// address is a new one, and starts cold.
#include <functional>
#include <iterator>

namespace latsim::cpu {

// Erase the entries of `map` (keyed by const void*) that lie in [begin, end).
template <class Map>
void erase_keys_in(Map& map, const void* begin, const void* end) {
  const std::less_equal<const void*> le;
  const std::less<const void*> lt;
  for (auto it = map.begin(); it != map.end();) {
    if (le(begin, it->first) && lt(it->first, end))
      map.erase(it++);  // erase(iterator) returns void in absl's maps; others stay valid
    else
      ++it;
  }
}

}  // namespace latsim::cpu
