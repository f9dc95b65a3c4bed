#pragma once
// Where a run writes besides its directory's fixed files: the directory itself, and the
// streamed timeline and VCD recordings (platform/timeline/). Declared here, mounted at
// outputs.* by the scenario schema.
#include <string>

#include "common/params.h"

namespace latsim::platform {

struct OutputConfig {
  std::string dir;              // empty: out/<name>/
  std::string timeline, vcd;    // trace-event JSON and VCD files; empty: none
  std::string trace_dat;        // trace-cmd/KernelShark trace.dat file; empty: none
  std::string timeline_window;  // "A-B" or "max:SPAN"; empty: the whole run
  // functions | tasks | auto (function slices only with a timeline_window)
  std::string timeline_detail = "auto";
};

params::Table<OutputConfig> output_keys();

}  // namespace latsim::platform
