#include "common/local_time.h"

namespace latsim::local_time {
namespace {
// Picoseconds, not an sc_time: a static sc_time would fix the time resolution too early.
uint64_t stop_ps_ = ~uint64_t(0);
bool enabled_ = false;
}  // namespace

bool run_ahead(const sc_core::sc_time& d) {
  if (!enabled_) return false;
  const sc_core::sc_time to = detail::lead + d;
  if ((sc_core::sc_time_stamp() + to).value() >= stop_ps_) return false;
  const sc_core::sc_simcontext* sim = sc_core::sc_get_curr_simcontext();
  if (sc_core::sc_pending_activity_at_current_time(sim)) return false;
  if (to >= sc_core::sc_time_to_pending_activity(sim)) return false;
  detail::lead = to;
  return true;
}

void sync() {
  if (detail::lead == sc_core::SC_ZERO_TIME) return;
  const sc_core::sc_time t = detail::lead;
  detail::lead = sc_core::SC_ZERO_TIME;
  sc_core::wait(t);
}

void enable(bool on) { enabled_ = on; }

void set_stop(const sc_core::sc_time& t) { stop_ps_ = t.value(); }

}  // namespace latsim::local_time
