// UHCI registers as uhci-hcd drives them (UHCI Design Guide 1.1, 2.1): reset
// defaults, Run/Stop against HCHalted (read-only and persistent, as Linux's uhci_irq
// relies on), write-1-to-clear status, FRNUM counting 1 ms frames only while running,
// and empty ports (bit 7 reads 1: how uhci_start counts ports).
#include "models/usb/uhci.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>

namespace latsim::usb {
namespace {

using latsim::test::Script;
using latsim::testing::fresh_simulation;
using sc_core::sc_time;
using sc_core::SC_US;
using U = Uhci;

TEST(Uhci, ResetDefaultsHaltedWithEmptyPorts) {
  fresh_simulation();
  Uhci hc("hc");
  EXPECT_EQ(hc.read(U::USBCMD, 2), 0u);
  EXPECT_EQ(hc.read(U::USBSTS, 2), uint32_t(U::USBSTS_HCH));
  EXPECT_EQ(hc.read(U::USBSOF, 1), 0x40u);
  EXPECT_EQ(hc.read(U::USBPORTSC1, 2), 0x80u);
  EXPECT_EQ(hc.read(U::USBPORTSC2, 2), 0x80u);
  EXPECT_EQ(hc.read(0x14, 2), 0u);  // past the two ports: uhci_start stops counting here
}

TEST(Uhci, RunClearsHaltedAndGlobalSuspendSetsIt) {
  fresh_simulation();
  Uhci hc("hc");
  // start_hc, then suspend_hc: what uhci_irq reads on every shared interrupt after.
  hc.write(U::USBCMD, 2, U::USBCMD_RS | U::USBCMD_CF | U::USBCMD_MAXP);
  EXPECT_EQ(hc.read(U::USBSTS, 2), 0u);  // a running controller with nothing to report
  hc.write(U::USBCMD, 2, U::USBCMD_EGSM);
  EXPECT_EQ(hc.read(U::USBSTS, 2), uint32_t(U::USBSTS_HCH));
  hc.write(U::USBSTS, 2, 0xffff);  // write-1-to-clear leaves the read-only HCHalted
  EXPECT_EQ(hc.read(U::USBSTS, 2), uint32_t(U::USBSTS_HCH));
  EXPECT_EQ(hc.status_reads(), 3u);
}

TEST(Uhci, FrameNumberCountsMillisecondsOnlyWhileRunning) {
  fresh_simulation();
  Uhci hc("hc");
  latsim::testing::TestInitiator bus("bus");  // the PCI side; reads go direct here
  bus.socket.bind(hc.socket);
  std::vector<uint32_t> fr;
  Script s("s", [&] {
    hc.write(U::USBFRNUM, 2, 0x7fe);  // allowed while halted
    sc_core::wait(sc_time(500, SC_US));
    hc.write(U::USBCMD, 2, U::USBCMD_RS);
    sc_core::wait(sc_time(999, SC_US));
    fr.push_back(hc.read(U::USBFRNUM, 2));  // 0.999 ms: still frame 0x7fe
    sc_core::wait(sc_time(1, SC_US));
    fr.push_back(hc.read(U::USBFRNUM, 2));  // 1 ms: 0x7ff
    hc.write(U::USBFRNUM, 2, 0);            // ignored while running
    sc_core::wait(sc_time(1000, SC_US));
    fr.push_back(hc.read(U::USBFRNUM, 2));  // wraps at 11 bits
    hc.write(U::USBCMD, 2, 0);
    sc_core::wait(sc_time(5000, SC_US));
    fr.push_back(hc.read(U::USBFRNUM, 2));  // halted: frozen
  });
  sc_core::sc_start();
  EXPECT_EQ(fr, (std::vector<uint32_t>{0x7fe, 0x7ff, 0x000, 0x000}));
}

TEST(Uhci, HostControllerResetRestoresDefaults) {
  fresh_simulation();
  Uhci hc("hc");
  hc.write(U::USBINTR, 2, 0x0f);
  hc.write(U::USBFLBASEADD, 4, 0x00230123);
  EXPECT_EQ(hc.read(U::USBFLBASEADD, 4), 0x00230000u);  // 4 KiB aligned
  hc.write(U::USBCMD, 2, U::USBCMD_RS);
  hc.write(U::USBCMD, 2, U::USBCMD_HCRESET);
  EXPECT_EQ(hc.read(U::USBCMD, 2), 0u);  // HCRESET done at once: nothing downstream
  EXPECT_EQ(hc.read(U::USBINTR, 2), 0u);
  EXPECT_EQ(hc.read(U::USBFLBASEADD, 4), 0u);
  EXPECT_EQ(hc.read(U::USBSTS, 2), uint32_t(U::USBSTS_HCH));
}

}  // namespace
}  // namespace latsim::usb
