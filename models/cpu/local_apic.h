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

  uint32_t read(unsigned offset);
  void write(unsigned offset, uint32_t v);

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
  uint32_t TPR = 0, LDR = 0, DFR = 0xFFFFFFFF, SVR = 0xFF, ESR = 0;
  uint32_t LVTT = kLvtMasked, LVTPC = kLvtMasked, LVT0 = kLvtMasked, LVT1 = kLvtMasked,
           LVTERR = kLvtMasked;
  uint32_t TMICT = 0, TDCR = 0;
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
  uint32_t ICR = 0, ICR2 = 0;
  uint64_t ipis_sent_ = 0;
  void send_ipi();
};

}  // namespace latsim::cpu
