#pragma once
// Temporal decoupling, kept exact. A CPU thread may run ahead of SystemC's time (the
// TLM-2.0 loosely-timed idea) only while no other process could act before it catches up:
// nothing else runnable now, no timed notification at or before its local time, and the
// run's current stop time still ahead. Then nothing it does can be observed out of order,
// and skipping the wait changes no result. Before anything another process can see — a
// wait, a notification, a spawn, a device access — the thread syncs: it waits out its
// lead. So at most the running thread is ahead, and one lead serves the whole simulation.
#include <systemc>

namespace latsim::local_time {

namespace detail {
inline sc_core::sc_time lead;  // the running thread's, by the rule above
}

// SystemC's time, read inline (sc_time_stamp() is a call into the library).
inline const sc_core::sc_time& sc_now() { return sc_core::sc_get_curr_simcontext()->time_stamp(); }
// The running thread's time: SystemC's plus its lead (inline: the kernel asks often).
inline sc_core::sc_time now() { return sc_now() + detail::lead; }
inline sc_core::sc_time lead() { return detail::lead; }
// Take `d` of the running thread's time without yielding, if nothing could happen in
// it (above); false: sync() and wait as usual.
bool run_ahead(const sc_core::sc_time& d);
// Wait out the lead, if any.
void sync();
// sync(), then wait(d, ev), as one wait: nothing can notify `ev` during the lead (nothing
// else runs in it), so waking at its end only to wait again would change nothing.
void sync_and_wait(const sc_core::sc_time& d, const sc_core::sc_event_or_list& ev);
void sync_and_wait(const sc_core::sc_time& d);  // the same, woken only by the time
// Off by default (unit tests drive sc_start themselves); the run turns it on.
void enable(bool on);
// sc_start(d) stops at `t` without a notification there: no lead may pass it.
void set_stop(const sc_core::sc_time& t);

}  // namespace latsim::local_time
