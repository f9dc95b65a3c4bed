#include "common/local_time.h"

namespace latsim::local_time {
namespace {
// Picoseconds, not sc_time: a static sc_time would fix the time resolution too early.
uint64_t stop_ps_ = ~uint64_t(0);
bool enabled_ = false;
// The next activity's time, as found in this evaluation phase: until the running thread
// syncs or yields, only it runs, and anything it could schedule is preceded by a sync.
uint64_t horizon_ps_ = 0;
uint64_t horizon_delta_ = ~uint64_t(0);  // sc_delta_count() when found; other: unknown
}  // namespace

bool run_ahead(const sc_core::sc_time& d) {
  if (!enabled_) return false;
  const sc_core::sc_time to = detail::lead + d;
  const uint64_t at = (sc_now() + to).value();
  if (at >= stop_ps_) return false;
  if (horizon_delta_ != sc_core::sc_delta_count()) {
    const sc_core::sc_simcontext* sim = sc_core::sc_get_curr_simcontext();
    if (sc_core::sc_pending_activity_at_current_time(sim)) return false;
    horizon_ps_ = (sc_now() + sc_core::sc_time_to_pending_activity(sim)).value();
    horizon_delta_ = sc_core::sc_delta_count();
  }
  if (at >= horizon_ps_) return false;
  detail::lead = to;
  return true;
}

namespace {
// The lead ends: returned, to be waited out.
sc_core::sc_time take_lead() {
  horizon_delta_ = ~uint64_t(0);  // what comes next may schedule something
  const sc_core::sc_time t = detail::lead;
  detail::lead = sc_core::SC_ZERO_TIME;
  return t;
}
}  // namespace

void sync() {
  const sc_core::sc_time t = take_lead();
  if (t != sc_core::SC_ZERO_TIME) sc_core::wait(t);
}

void sync_and_wait(const sc_core::sc_time& d, const sc_core::sc_event_or_list& ev) {
  sc_core::wait(take_lead() + d, ev);
}

void sync_and_wait(const sc_core::sc_time& d) { sc_core::wait(take_lead() + d); }

void enable(bool on) { enabled_ = on; }

void set_stop(const sc_core::sc_time& t) { stop_ps_ = t.value(); }

}  // namespace latsim::local_time
