// The running thread's lead over SystemC time: granted only while nothing else could
// happen in it, never past the run's stop time, and waited out by sync().
#include "common/local_time.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using sc_core::SC_NS;
using sc_core::sc_time;

// One thread takes 10 ns steps ahead while another sleeps until 100 ns.
struct Probe : sc_core::sc_module {
  std::vector<bool> granted;
  sc_time synced_at, other_woke_at;
  SC_HAS_PROCESS(Probe);
  explicit Probe(sc_core::sc_module_name n) : sc_module(n) {
    SC_THREAD(runner);
    SC_THREAD(other);
  }
  void runner() {
    sc_core::wait(sc_core::SC_ZERO_TIME);  // the other thread is waiting by now
    for (int i = 0; i < 12; ++i)
      granted.push_back(latsim::local_time::run_ahead(sc_time(10, SC_NS)));
    latsim::local_time::sync();
    synced_at = sc_core::sc_time_stamp();
  }
  void other() {
    sc_core::wait(100, SC_NS);
    other_woke_at = sc_core::sc_time_stamp();
  }
};

size_t granted_steps(const Probe& p) {
  size_t n = 0;
  while (n < p.granted.size() && p.granted[n]) ++n;
  for (size_t i = n; i < p.granted.size(); ++i) EXPECT_FALSE(p.granted[i]) << "step " << i;
  return n;
}

TEST(LocalTime, RunsAheadOnlyUpToTheNextActivityThenSyncWaitsItOut) {
  latsim::local_time::enable(true);
  Probe p("probe");
  sc_core::sc_start(sc_time(1, sc_core::SC_US));
  // 10..90 ns lie before the other thread's wake-up; the step onto 100 ns (a tie, whose
  // order SystemC decides) and every later one are refused.
  EXPECT_EQ(granted_steps(p), 9u);
  EXPECT_EQ(p.synced_at, sc_time(90, SC_NS));  // sync() waited out the lead
  EXPECT_EQ(p.other_woke_at, sc_time(100, SC_NS));
  EXPECT_EQ(latsim::local_time::lead(), sc_core::SC_ZERO_TIME);
}

TEST(LocalTime, NeverPassesTheStopTime) {
  latsim::local_time::enable(true);
  latsim::local_time::set_stop(sc_time(45, SC_NS));
  Probe p("probe");
  sc_core::sc_start(sc_time(1, sc_core::SC_US));
  EXPECT_EQ(granted_steps(p), 4u);  // 40 ns; 50 ns would pass the stop
  EXPECT_EQ(p.synced_at, sc_time(40, SC_NS));
}

TEST(LocalTime, OffGrantsNothing) {
  latsim::local_time::enable(false);
  Probe p("probe");
  sc_core::sc_start(sc_time(1, sc_core::SC_US));
  EXPECT_EQ(granted_steps(p), 0u);
  EXPECT_EQ(p.synced_at, sc_core::SC_ZERO_TIME);
}

}  // namespace
