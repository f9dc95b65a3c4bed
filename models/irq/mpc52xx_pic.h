#pragma once
// Freescale MPC5200(B) interrupt controller (MPC5200BUM, "Interrupt Controller"): three
// groups of level sources, critical (4), main (17) and peripheral (24), each source with
// a mask bit and a priority, and an encoded status register the kernel reads to find the
// highest pending source (mpc52xx_get_irq). Peripherals are routed as LO (main source 4)
// or HI (critical source 2). Outputs: the core's int# and cint# (critical, unless CEb
// routes it to int#). Register offsets and bits as Linux's struct mpc52xx_intr and
// mpc52xx_pic.c use them; the external IRQ[0-3] pins (edge, sense) are not modelled.
#include <tlm_utils/simple_target_socket.h>
#include <array>
#include <cstdint>
#include <systemc>
#include <tlm>
#include "common/params.h"
#include "models/irq/irq_line.h"

namespace latsim::irq {

// Whether the board's interrupts go through the MPC5200's controller (platform.mpc52xx_pic).
struct Mpc52xxPicParams {
  bool fitted = false;  // false: the PC's 8259A / IO-APIC
};
params::Table<Mpc52xxPicParams> mpc52xx_pic_keys();

class Mpc52xxPic : public sc_core::sc_module, public IrqSink {
 public:
  // Register offsets in the controller's MBAR block (Linux include/asm-powerpc/mpc52xx.h).
  enum Offset : unsigned {
    PER_MASK = 0x00,     // peripheral mask, source n at bit 31 - n, 1 = masked
    PER_PRI1 = 0x04,     // peripheral priority & HI/LO select, sources 0-7
    PER_PRI2 = 0x08,     // sources 8-15
    PER_PRI3 = 0x0c,     // sources 16-23
    CTRL = 0x10,         // external enable/types, MEE, CEb
    MAIN_MASK = 0x14,    // main mask, source n at bit 16 - n, 1 = masked
    MAIN_PRI1 = 0x18,    // main priority, sources 0-7
    MAIN_PRI2 = 0x1c,    // sources 8-15
    ENC_STATUS = 0x24,   // PSe/PSn, MSe/MSn, CSe/CSn
    CRIT_STATUS = 0x28,  // critical sources pending
    MAIN_STATUS = 0x2c,  // main sources pending
    PER_STATUS = 0x30,   // peripheral sources pending
    PER_ERROR = 0x38,
  };
  static constexpr unsigned kWindow = 0x80;  // Linux's device tree: pic reg <500 80>
  static constexpr unsigned kCritical = 4, kMain = 17, kPeripheral = 24;
  // Encoded status bits (mpc52xx_get_irq).
  static constexpr uint32_t ENC_CSE = 0x00000400, ENC_MSE = 0x00200000, ENC_PSE = 0x20000000;
  static constexpr unsigned ENC_CSN_SHIFT = 8, ENC_MSN_SHIFT = 16, ENC_PSN_SHIFT = 24;
  // CTRL bits (mpc52xx_init_irq): MEE master external enable, CEb critical to int#.
  static constexpr uint32_t CTRL_MEE = 0x00001000, CTRL_CEB = 0x00000001;
  // Where the peripherals' summary lands in the other groups (mpc52xx_get_irq).
  static constexpr unsigned kMainLoInt = 4, kCritHiInt = 2;
  static constexpr unsigned kPerBestcomm = 0;  // peripheral source 0: the SDMA (BestComm)

  // Input pins (IrqSink): critical 0-3, then main 0-16, then peripheral 0-23.
  static constexpr unsigned crit_pin(unsigned n) { return n; }
  static constexpr unsigned main_pin(unsigned n) { return kCritical + n; }
  static constexpr unsigned per_pin(unsigned n) { return kCritical + kMain + n; }

  tlm_utils::simple_target_socket<Mpc52xxPic> socket;
  IrqLine core_int;   // int#: the e300's external interrupt
  IrqLine core_cint;  // cint#: its critical interrupt (when CEb is 0)

  explicit Mpc52xxPic(sc_core::sc_module_name name);
  Mpc52xxPic(const Mpc52xxPic&) = delete;
  Mpc52xxPic& operator=(const Mpc52xxPic&) = delete;

  uint32_t read(uint64_t offset, unsigned len);
  void write(uint64_t offset, unsigned len, uint32_t v);
  void irq_set(unsigned pin, bool level) override;

  uint32_t enc_status() const;
  uint64_t int_assertions() const { return int_assertions_; }

 private:
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  bool per_pending(unsigned n) const;
  bool per_hi(unsigned n) const;
  unsigned per_priority(unsigned n) const;
  bool main_pending(unsigned n) const;
  bool crit_pending(unsigned n) const;
  int highest_per() const;
  int highest_main() const;
  int highest_crit() const;
  void update();

  std::array<bool, kCritical> crit_in_{};
  std::array<bool, kMain> main_in_{};
  std::array<bool, kPeripheral> per_in_{};
  // Reset values: every source masked, priorities 0 (assumption: the boot loader's state;
  // mpc52xx_init_irq rewrites them all).
  uint32_t per_mask_ = 0xffffffff, main_mask_ = 0x0001ffff, ctrl_ = 0;
  std::array<uint32_t, 3> per_pri_{};
  std::array<uint32_t, 2> main_pri_{};
  uint64_t int_assertions_ = 0;
};

}  // namespace latsim::irq
