// sc_main for test binaries: libsystemc owns main() and calls us.
#include <gtest/gtest.h>
#include <cstdlib>
#include <systemc>

int sc_main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
