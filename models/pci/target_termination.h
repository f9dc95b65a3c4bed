#pragma once
// PCI target termination (3.3.3.2 of the 2.1/2.2 spec) seen through TLM-2.0. A
// Retry moves no data and asks the master to repeat the same transaction later.
// TLM-2.0 has no such status, so a target signals it with TLM_INCOMPLETE_RESPONSE,
// whose base-protocol meaning ("the target did not attempt to execute the
// command", IEEE 1666-2011 14.17) is exactly that. Every other target sets an
// explicit status; an initiator sets TLM_INCOMPLETE_RESPONSE before each try.
#include <tlm>

namespace latsim::pci {

// PCI 2.1 rule (2.2 3.5.1.1): complete the initial data phase within 16 clocks of FRAME#.
constexpr int kInitialLatencyLimitClocks = 16;
// PCI 2.2 3.4.1: after a Retry the master deasserts REQ# for at least 2 clocks.
constexpr int kRetryReqReleaseClocks = 2;

inline void signal_retry(tlm::tlm_generic_payload& p) {
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}
inline bool is_retry(const tlm::tlm_generic_payload& p) {
  return p.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE;
}

}  // namespace latsim::pci
