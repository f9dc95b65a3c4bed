#pragma once
// A stimulus module for model tests: runs a test's lambda as an SC_THREAD, so it
// can wait() and drive a model through its sockets at chosen simulated times.
#include <functional>
#include <systemc>

namespace latsim::test {

struct Script : sc_core::sc_module {
  std::function<void()> body;
  SC_HAS_PROCESS(Script);
  Script(sc_core::sc_module_name n, std::function<void()> b) : sc_module(n), body(std::move(b)) {
    SC_THREAD(run);
  }
  void run() { body(); }
};

}  // namespace latsim::test
