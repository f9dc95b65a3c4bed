#pragma once
// What a CPU spinning on a lock word waits for: the holder's release. The release is
// announced only while a CPU spins (a notification nobody waits for changes nothing),
// so an uncontended unlock lets the releasing CPU keep running ahead (local_time.h).
#include <systemc>
#include "common/local_time.h"

namespace latsim::kernel {

struct SpinWait {
  sc_core::sc_event released;
  int spinners = 0;  // CPUs inside spin_until on it
  void release() {
    if (spinners == 0) return;
    local_time::sync();  // the spinner sees it at the releaser's time
    released.notify(sc_core::SC_ZERO_TIME);
  }
};

}  // namespace latsim::kernel
