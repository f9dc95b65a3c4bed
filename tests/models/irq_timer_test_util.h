#pragma once
// Shared bits for the timer/irq/local APIC tests: a fresh 1 ps kernel and a TLM
// initiator that binds a device's target socket and issues timed accesses.
#include <tlm_utils/simple_initiator_socket.h>
#include <cstring>
#include <systemc>
#include <tlm>
#include "models/common/time.h"

namespace latsim::testing {

// Call first in every test, before creating modules. ctest runs each case in its own
// process; so that a plain run of the whole binary works too, every test after the
// first gets a fresh simulation kernel (the previous one is leaked on purpose: its
// modules are gone and SystemC 2.3 cannot elaborate again once sc_start has run).
inline void fresh_simulation() {
  static bool first = true;
  if (!first) {
    sc_core::sc_curr_simcontext = new sc_core::sc_simcontext;
    sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
  }
  first = false;
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);  // as the platform does
}

class TestInitiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TestInitiator> socket;
  explicit TestInitiator(sc_core::sc_module_name n) : sc_module(n), socket("socket") {}

  // One access of `len` bytes; `delay` is the annotated local time, updated by the target.
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len,
                                  sc_time& delay) {
    tlm::tlm_generic_payload p;
    p.set_command(cmd);
    p.set_address(addr);
    p.set_data_ptr(static_cast<unsigned char*>(data));
    p.set_data_length(len);
    p.set_streaming_width(len);
    socket->b_transport(p, delay);
    return p.get_response_status();
  }
  uint8_t read8(uint64_t addr, sc_time& delay) {
    uint8_t v = 0;
    access(tlm::TLM_READ_COMMAND, addr, &v, 1, delay);
    return v;
  }
  void write8(uint64_t addr, uint8_t v, sc_time& delay) {
    access(tlm::TLM_WRITE_COMMAND, addr, &v, 1, delay);
  }
  uint32_t read32(uint64_t addr, sc_time& delay) {
    uint32_t v = 0;
    access(tlm::TLM_READ_COMMAND, addr, &v, 4, delay);
    return v;
  }
  void write32(uint64_t addr, uint32_t v, sc_time& delay) {
    access(tlm::TLM_WRITE_COMMAND, addr, &v, 4, delay);
  }
};

}  // namespace latsim::testing
