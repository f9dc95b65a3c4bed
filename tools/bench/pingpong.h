#pragma once
// The bare SystemC kernel's speed, as a bound for the models' own: N SC_THREADs in a ring
// pass one token, each hop a wait on the thread's event and a 1 ns timed notification of
// the next thread's. `latsim bench --pingpong N` runs it in a process of its own (SystemC
// elaborates once per process).
#include <cstdint>

#include <nlohmann/json.hpp>

namespace latsim::bench {

inline constexpr uint64_t kDefaultHops = 5'000'000;  // about half a second of wall time

// Elaborates the ring in this process and simulates `hops` hops (call it once per process):
// {"threads", "hops", "deltas" (SystemC delta cycles), "wall_seconds"}.
nlohmann::json run_pingpong(int threads, uint64_t hops);

}  // namespace latsim::bench
