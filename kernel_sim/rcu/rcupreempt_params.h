#pragma once
// The kernel.rcu.* keys: CONFIG_RCU_TRACE and RCU boosting of the preemptible-RCU
// flavours (kernel_sim/rcu/rcupreempt.h), and the cost of what tracing adds.
#include "common/params.h"

namespace latsim::kernel {

struct RcuParams {
  // CONFIG_RCU_TRACE: the boost path's trace points count events (rcupreempt_trace.c's
  // probes on the markers, or 2.6.25-rt's rcu_trace_boost_*() counters) and the grace-period
  // machinery its RCU_TRACE_*() counters.
  bool trace = false;
  // CONFIG_PREEMPT_RCU_BOOST on a flavour that has it (false: a counterfactual kernel
  // without it: no list, no unboost path).
  bool boost = true;
  // kernel/rcupreempt-boost.c rcu_preempt_thread_secs: krcupreemptd's synchronize_rcu period.
  int preempt_thread_secs = 3;
  // An armed marker's call: marker_probe_cb (va_start, the probe array) and the probe's
  // counter increment. Assumption: ~40 instructions on a 603e-class core.
  int marker_probe_cycles = 60;
  // Lines it touches: the marker struct in __markers, marker_probe_cb's and the probe's
  // code, the counter (assumption).
  int marker_probe_lines = 4;
};

// kernel.rcu.*, paths under "kernel.rcu." (rcupreempt.cpp).
params::Table<RcuParams> rcu_keys();

}  // namespace latsim::kernel
