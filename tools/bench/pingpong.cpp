#include "tools/bench/pingpong.h"

#include <chrono>
#include <memory>
#include <systemc>
#include <vector>

namespace latsim::bench {
namespace {

class Ring : public sc_core::sc_module {
 public:
  Ring(const sc_core::sc_module_name& name, int threads) : sc_module(name) {
    for (int i = 0; i < threads; ++i) events_.push_back(std::make_unique<sc_core::sc_event>());
    for (int i = 0; i < threads; ++i)
      sc_core::sc_spawn([this, i] { hop(size_t(i)); }, sc_core::sc_gen_unique_name("hop"));
  }
  uint64_t hops() const { return hops_; }

 private:
  void hop(size_t i) {
    const sc_core::sc_time step(1, sc_core::SC_NS);
    if (i == 0) events_[0]->notify(step);  // the token enters the ring
    for (;;) {
      sc_core::wait(*events_[i]);
      ++hops_;
      events_[(i + 1) % events_.size()]->notify(step);
    }
  }

  std::vector<std::unique_ptr<sc_core::sc_event>> events_;
  uint64_t hops_ = 0;
};

}  // namespace

nlohmann::json run_pingpong(int threads, uint64_t hops) {
  Ring ring("ring", threads);
  const auto t0 = std::chrono::steady_clock::now();
  // Hop k happens at k ns, so half a hop more takes in the last one; a time limit, since
  // sc_stop would print a message on stdout.
  sc_core::sc_start(sc_core::sc_time(double(hops) + 0.5, sc_core::SC_NS));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {{"threads", threads},
          {"hops", ring.hops()},
          {"deltas", sc_core::sc_delta_count()},
          {"wall_seconds", wall}};
}

}  // namespace latsim::bench
