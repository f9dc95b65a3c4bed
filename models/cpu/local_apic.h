#pragma once
// P6-family local APIC (Pentium III, APIC version 0x11, 5 LVT entries): IRR/ISR/TPR
// priority logic, EOI, LINT0/LINT1 pins and the timer, which counts bus clocks
// through the divide configuration and is computed analytically (one event per expiry).
// IPIs: a write of ICR (low) sends a message with ICR2's destination on the APIC
// bus it is attached to (delivery there is immediate, so Delivery Status reads idle).
// Not modelled: error/performance LVT delivery, the focus processor, shorthands other
// than self/all,
// TMR (EOI is always reported, harmless: the IO-APIC only acts on level entries).
#include <cstdint>
#include <systemc>
#include "models/common/register_bank.h"
#include "models/common/time.h"
#include "models/irq/irq_line.h"

namespace latsim::cpu {

class LocalApic : public sc_core::sc_module, public irq::IrqSink {
 public:
  // Register offsets in the 4 KB APIC page (names as in Linux's apicdef.h).
  enum Offset : unsigned {
    APIC_ID = 0x020,
    APIC_LVR = 0x030,
    APIC_TASKPRI = 0x080,
    APIC_ARBPRI = 0x090,
    APIC_PROCPRI = 0x0A0,
    APIC_EOI = 0x0B0,
    APIC_LDR = 0x0D0,
    APIC_DFR = 0x0E0,
    APIC_SPIV = 0x0F0,
    APIC_ISR = 0x100,
    APIC_TMR = 0x180,
    APIC_IRR = 0x200,
    APIC_ESR = 0x280,
    APIC_ICR = 0x300,
    APIC_ICR2 = 0x310,
    APIC_LVTT = 0x320,
    APIC_LVTPC = 0x340,
    APIC_LVT0 = 0x350,
    APIC_LVT1 = 0x360,
    APIC_LVTERR = 0x370,
    APIC_TMICT = 0x380,
    APIC_TMCCT = 0x390,
    APIC_TDCR = 0x3E0,
  };
  static constexpr uint32_t kLvtMasked = 1u << 16;
  static constexpr uint32_t kLvtPeriodic = 1u << 17;
  static constexpr uint32_t kSpivEnabled = 1u << 8;

  LocalApic(sc_core::sc_module_name name, unsigned apic_id, double bus_clock_mhz = 133.33);
  LocalApic(const LocalApic&) = delete;
  LocalApic& operator=(const LocalApic&) = delete;

  uint32_t read(unsigned offset) { return regs_.read(offset, 4); }
  void write(unsigned offset, uint32_t v) { regs_.write(offset, 4, v); }

  // A message from the APIC bus.
  void accept(unsigned vector, irq::DeliveryMode mode);
  // LINT0 (pin 0, the 8259A INTR in virtual-wire mode) and LINT1 (pin 1, NMI).
  void irq_set(unsigned pin, bool level) override;

  // The core's side: NMI, or an ExtINT, or an IRR vector above the processor priority.
  bool has_deliverable() const;
  bool nmi_pending() const { return nmi_pending_; }
  bool extint_pending() const { return extint_pending_; }
  bool take_nmi();
  bool take_extint();  // then the core runs the 8259A INTA cycle for the vector
  unsigned ack();      // highest IRR -> ISR; the spurious vector if none is deliverable
  void eoi();
  sc_core::sc_event& interrupt_event() { return interrupt_event_; }
  void set_eoi_listener(irq::EoiListener* l) { eoi_listener_ = l; }
  // The APIC bus that carries this APIC's IPIs (ICR writes).
  void set_ipi_bus(irq::ApicBus* b) { ipi_bus_ = b; }
  uint64_t ipis_sent() const { return ipis_sent_; }

  unsigned apic_id() const { return id_; }
  uint8_t tpr() const { return uint8_t(TPR); }
  uint8_t logical_id() const { return uint8_t(LDR >> 24); }
  uint8_t ppr() const;
  bool irr(unsigned vector) const { return IRR.test(vector); }
  bool isr(unsigned vector) const { return ISR.test(vector); }
  uint64_t timer_interrupts() const { return timer_interrupts_; }

  // Time of `n` bus clocks, exact to the picosecond (rounded once, not accumulated).
  sc_time bus_clocks(uint64_t n) const;

 private:
  using Reg = Register<LocalApic>;
  // 256-bit vector register (IRR/ISR), four words so the highest bit is one clz away.
  struct Bits256 {
    uint64_t w[4] = {0, 0, 0, 0};
    bool test(unsigned v) const { return (w[(v >> 6) & 3] >> (v & 63)) & 1; }
    void set(unsigned v) { w[(v >> 6) & 3] |= 1ull << (v & 63); }
    void reset(unsigned v) { w[(v >> 6) & 3] &= ~(1ull << (v & 63)); }
    uint32_t dword(unsigned i) const { return uint32_t(w[i / 2] >> (32 * (i & 1))); }
    int highest() const {  // -1 if empty
      for (int i = 3; i >= 0; --i)
        if (w[i]) return i * 64 + 63 - __builtin_clzll(w[i]);
      return -1;
    }
  };

  uint32_t read_id(const RegIo&) { return id_ << 24; }
  uint32_t read_arbpri(const RegIo&);
  uint32_t read_ppr(const RegIo&) { return ppr(); }
  uint32_t read_isr(const RegIo& io) { return ISR.dword(io.index); }
  uint32_t read_tmr(const RegIo&) { return 0; }  // TMR not modelled
  uint32_t read_irr(const RegIo& io) { return IRR.dword(io.index); }
  uint32_t read_tmcct(const RegIo&) { return current_count(); }
  void write_tpr(uint32_t v, const RegIo& io);
  void write_eoi(uint32_t, const RegIo&) { eoi(); }
  void write_svr(uint32_t v, const RegIo& io);
  void write_esr(uint32_t, const RegIo&) { ESR = 0; }  // a write re-arms the error status
  void write_lvtt(uint32_t v, const RegIo& io);
  void write_lvtpc(uint32_t v, const RegIo&) { LVTPC = (v & 0x107FF) | lvt_force(); }
  void write_lint0(uint32_t v, const RegIo&) { write_lint(0, v); }
  void write_lint1(uint32_t v, const RegIo&) { write_lint(1, v); }
  void write_lint(unsigned pin, uint32_t v);
  void write_lvterr(uint32_t v, const RegIo&) { LVTERR = (v & 0x100FF) | lvt_force(); }
  void write_tmict(uint32_t v, const RegIo& io);
  void write_tdcr(uint32_t v, const RegIo& io);
  void write_icr(uint32_t v, const RegIo& io);
  // While software-disabled (SVR bit 8 = 0) every LVT mask bit is forced set.
  uint32_t lvt_force() const { return (SVR & kSpivEnabled) ? 0 : kLvtMasked; }
  void set_irr(unsigned vector);
  void wake();  // interrupt_event_: has_deliverable() may have become true
  uint32_t current_count() const;
  void timer_rebase();  // restart the countdown from the current count (new divisor/mode)
  void timer_schedule();
  void on_timer();
  unsigned divisor() const;

  unsigned id_;
  uint64_t bus_hz_;
  Bits256 IRR, ISR;
  // The APIC page: 32-bit registers on 16-byte boundaries (SDM Vol. 3 table 10-1).
  RegisterBank<LocalApic> regs_{this};
  Reg id_reg_ = Reg(regs_, "ID", {APIC_ID, 4}, RegAccess::RO, 0, &LocalApic::read_id);
  Reg lvr_ = Reg(regs_, "Version", {APIC_LVR, 4}, RegAccess::RO, 0x00040011);  // P6: 0x11, 5 LVTs
  Reg TPR =
      Reg(regs_, "TPR", {APIC_TASKPRI, 4}, RegRights{0xFF, 0}, 0, nullptr, &LocalApic::write_tpr);
  Reg apr_ = Reg(regs_, "APR", {APIC_ARBPRI, 4}, RegAccess::RO, 0, &LocalApic::read_arbpri);
  Reg ppr_ = Reg(regs_, "PPR", {APIC_PROCPRI, 4}, RegAccess::RO, 0, &LocalApic::read_ppr);
  Reg eoi_ = Reg(regs_, "EOI", {APIC_EOI, 4}, RegAccess::WO, 0, nullptr, &LocalApic::write_eoi);
  Reg LDR = Reg(regs_, "LDR", {APIC_LDR, 4}, RegRights{0xFF000000, 0});
  Reg DFR = Reg(regs_, "DFR", {APIC_DFR, 4}, RegRights{0xF0000000, 0}, 0xFFFFFFFF);  // 27:0 = 1s
  Reg SVR = Reg(regs_, "SVR", {APIC_SPIV, 4}, RegAccess::RW, 0xFF, nullptr, &LocalApic::write_svr);
  Reg isr_ = Reg(regs_, "ISR", {APIC_ISR, 4, 8, 16}, RegAccess::RO, 0, &LocalApic::read_isr);
  Reg tmr_ = Reg(regs_, "TMR", {APIC_TMR, 4, 8, 16}, RegAccess::RO, 0, &LocalApic::read_tmr);
  Reg irr_ = Reg(regs_, "IRR", {APIC_IRR, 4, 8, 16}, RegAccess::RO, 0, &LocalApic::read_irr);
  Reg ESR = Reg(regs_, "ESR", {APIC_ESR, 4}, RegAccess::RW, 0, nullptr, &LocalApic::write_esr);
  Reg ICR = Reg(regs_, "ICR (low)", {APIC_ICR, 4}, RegRights{0xCCFFF, 0}, 0, nullptr,
                &LocalApic::write_icr);  // Delivery Status (bit 12) reads idle
  Reg ICR2 = Reg(regs_, "ICR (high)", {APIC_ICR2, 4}, RegRights{0xFF000000, 0});
  Reg LVTT = Reg(regs_, "LVT Timer", {APIC_LVTT, 4}, RegAccess::RW, kLvtMasked, nullptr,
                 &LocalApic::write_lvtt);
  Reg LVTPC = Reg(regs_, "LVT Performance Counter", {APIC_LVTPC, 4}, RegAccess::RW, kLvtMasked,
                  nullptr, &LocalApic::write_lvtpc);
  Reg LVT0 = Reg(regs_, "LVT LINT0", {APIC_LVT0, 4}, RegAccess::RW, kLvtMasked, nullptr,
                 &LocalApic::write_lint0);
  Reg LVT1 = Reg(regs_, "LVT LINT1", {APIC_LVT1, 4}, RegAccess::RW, kLvtMasked, nullptr,
                 &LocalApic::write_lint1);
  Reg LVTERR = Reg(regs_, "LVT Error", {APIC_LVTERR, 4}, RegAccess::RW, kLvtMasked, nullptr,
                   &LocalApic::write_lvterr);
  Reg TMICT = Reg(regs_, "Initial Count", {APIC_TMICT, 4}, RegAccess::RW, 0, nullptr,
                  &LocalApic::write_tmict);
  Reg tmcct_ =
      Reg(regs_, "Current Count", {APIC_TMCCT, 4}, RegAccess::RO, 0, &LocalApic::read_tmcct);
  Reg TDCR = Reg(regs_, "Divide Configuration", {APIC_TDCR, 4}, RegAccess::RW, 0, nullptr,
                 &LocalApic::write_tdcr);
  bool lint_[2] = {false, false};
  bool nmi_pending_ = false, extint_pending_ = false;
  // Timer run: expiry m (0-based) is at start + bus_clocks((first + m * TMICT) * divisor).
  sc_time timer_start_;
  uint64_t timer_first_ = 0, timer_m_ = 0;
  bool timer_running_ = false;
  uint64_t timer_interrupts_ = 0;
  sc_core::sc_event timer_event_, interrupt_event_;
  irq::EoiListener* eoi_listener_ = nullptr;
  irq::ApicBus* ipi_bus_ = nullptr;
  uint64_t ipis_sent_ = 0;
  void send_ipi();
};

}  // namespace latsim::cpu
