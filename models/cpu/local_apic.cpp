#include "models/cpu/local_apic.h"

#include <algorithm>
#include <cmath>

namespace latsim::cpu {

namespace {
constexpr uint64_t kPsPerSecond = 1000000000000ULL;
constexpr uint32_t kLvtDeliveryMode = 0x700;
}  // namespace

LocalApic::LocalApic(sc_core::sc_module_name name, unsigned apic_id, double bus_clock_mhz)
    : sc_module(name), id_(apic_id & 0xF), bus_hz_(uint64_t(std::llround(bus_clock_mhz * 1e6))) {
  sc_assert(bus_hz_ > 0);
  SC_HAS_PROCESS(LocalApic);
  SC_METHOD(on_timer);
  sensitive << timer_event_;
  dont_initialize();
}

sc_time LocalApic::bus_clocks(uint64_t n) const {
  unsigned __int128 num = (unsigned __int128)n * kPsPerSecond + bus_hz_ / 2;
  return ps(uint64_t(num / bus_hz_));
}

// ---- registers ----------------------------------------------------------------------

uint32_t LocalApic::read_arbpri(const RegIo&) {  // P6 arbitration priority (SDM 10.6.2.4)
  const unsigned irrv = unsigned(std::max(IRR.highest(), 0));
  const unsigned isrv = unsigned(std::max(ISR.highest(), 0));
  if ((TPR >> 4) >= (irrv >> 4) && (TPR >> 4) > (isrv >> 4)) return TPR;
  return std::max({TPR & 0xF0, isrv & 0xF0, irrv & 0xF0});
}

void LocalApic::write_tpr(uint32_t v, const RegIo& io) {
  TPR.apply(v, io);
  wake();  // a lower TPR may unblock a pending vector
}

void LocalApic::write_svr(uint32_t v, const RegIo&) {
  SVR = (v & 0x3FF) | 0x0F;  // P6: spurious vector bits 3:0 are hardwired to 1
  if (SVR & kSpivEnabled) return;
  LVTT |= kLvtMasked;
  LVTPC |= kLvtMasked;
  LVT0 |= kLvtMasked;
  LVT1 |= kLvtMasked;
  LVTERR |= kLvtMasked;
}

void LocalApic::write_lvtt(uint32_t v, const RegIo&) {
  const bool mode_change = (LVTT ^ v) & kLvtPeriodic;
  if (mode_change) timer_rebase();
  LVTT = (v & (kLvtPeriodic | kLvtMasked | 0xFF)) | lvt_force();
  if (mode_change) timer_schedule();
}

void LocalApic::write_lint(unsigned pin, uint32_t v) {
  (pin ? LVT1 : LVT0) = (v & 0x1A7FF) | lvt_force();
  irq_set(pin, lint_[pin]);  // re-evaluate a level already present on the pin
}

void LocalApic::write_tmict(uint32_t v, const RegIo&) {
  // Writing the initial count (re)starts the countdown; 0 stops the timer.
  TMICT = v;
  timer_running_ = v != 0;
  timer_start_ = sc_core::sc_time_stamp();
  timer_first_ = v;
  timer_m_ = 0;
  timer_schedule();
}

void LocalApic::write_tdcr(uint32_t v, const RegIo&) {
  timer_rebase();
  TDCR = v & 0xB;
  timer_schedule();
}

void LocalApic::write_icr(uint32_t v, const RegIo& io) {
  ICR.apply(v, io);  // vector, delivery/destination mode, level, trigger, shorthand
  send_ipi();
}

// ---- IPIs ---------------------------------------------------------------------------

void LocalApic::send_ipi() {
  if (!ipi_bus_) return;
  const unsigned vector = ICR & 0xFF;
  const unsigned mode = (ICR >> 8) & 7;  // 0 fixed, 1 lowest priority, 4 NMI
  const irq::DeliveryMode dm = mode == 4   ? irq::DeliveryMode::Nmi
                               : mode == 1 ? irq::DeliveryMode::LowestPriority
                                           : irq::DeliveryMode::Fixed;
  ++ipis_sent_;
  switch ((ICR >> 18) & 3) {  // destination shorthand
    case 1:                   // self
      accept(vector, dm);
      return;
    case 2:  // all including self
      ipi_bus_->deliver(0xFF, vector, dm);
      return;
    case 3:  // all excluding self: every other ID on the bus
      for (unsigned id = 0; id < 15; ++id)
        if (id != id_) ipi_bus_->deliver(id, vector, dm);
      return;
    default:
      break;
  }
  const unsigned dest = ICR2 >> 24;
  if (ICR & (1u << 11))
    ipi_bus_->deliver_logical(dest, vector, dm);
  else
    ipi_bus_->deliver(dest, vector, dm);
}

// ---- interrupt acceptance and priority ----------------------------------------------

void LocalApic::wake() {
  // Immediate notification is illegal during elaboration: fall back to a delta there.
  const auto st = sc_core::sc_get_status();
  if (st == sc_core::SC_RUNNING || st == sc_core::SC_PAUSED)
    interrupt_event_.notify();
  else
    interrupt_event_.notify(SC_ZERO_TIME);
}

void LocalApic::set_irr(unsigned vector) {
  vector &= 0xFF;
  if (vector < 16) {
    ESR |= 0x40;  // received illegal vector: vectors 0-15 are not accepted
    return;
  }
  IRR.set(vector);
}

void LocalApic::accept(unsigned vector, irq::DeliveryMode mode) {
  switch (mode) {
    case irq::DeliveryMode::Fixed:
    case irq::DeliveryMode::LowestPriority:
      set_irr(vector);
      break;
    case irq::DeliveryMode::Nmi:
      nmi_pending_ = true;
      break;
    case irq::DeliveryMode::ExtInt:
      extint_pending_ = true;
      break;
    default:
      return;  // SMI, INIT: not modelled
  }
  wake();
}

void LocalApic::irq_set(unsigned pin, bool level) {
  if (pin > 1) return;
  const bool was = lint_[pin];
  lint_[pin] = level;
  const uint32_t lvt = pin ? LVT1 : LVT0;
  if (lvt & kLvtMasked) return;
  switch ((lvt & kLvtDeliveryMode) >> 8) {
    case 7:  // ExtINT is level-sensitive, as the INTR pin it replaces
      if (extint_pending_ == level) return;
      extint_pending_ = level;
      break;
    case 4:  // NMI: edge
      if (!level || was) return;
      nmi_pending_ = true;
      break;
    case 0:  // Fixed: taken as edge (LINT level/remote IRR not modelled)
      if (!level || was) return;
      set_irr(lvt & 0xFF);
      break;
    default:
      return;
  }
  wake();
}

uint8_t LocalApic::ppr() const {
  // PPR = TPR if TPR[7:4] >= ISRV[7:4], else ISRV[7:4]:0.
  const unsigned isrv = unsigned(std::max(ISR.highest(), 0));
  return (TPR >> 4) >= (isrv >> 4) ? uint8_t(TPR) : uint8_t(isrv & 0xF0);
}

bool LocalApic::has_deliverable() const {
  if (nmi_pending_ || extint_pending_) return true;
  const int irrv = IRR.highest();
  return irrv >= 0 && unsigned(irrv >> 4) > unsigned(ppr() >> 4);
}

bool LocalApic::take_nmi() {
  const bool p = nmi_pending_;
  nmi_pending_ = false;
  return p;
}

bool LocalApic::take_extint() {
  const bool p = extint_pending_;
  extint_pending_ = false;
  return p;
}

unsigned LocalApic::ack() {
  const int irrv = IRR.highest();
  // Nothing above the processor priority any more: the spurious vector, ISR untouched.
  if (irrv < 0 || unsigned(irrv >> 4) <= unsigned(ppr() >> 4)) return SVR & 0xFF;
  IRR.reset(unsigned(irrv));
  ISR.set(unsigned(irrv));
  return unsigned(irrv);
}

void LocalApic::eoi() {
  const int isrv = ISR.highest();
  if (isrv < 0) return;
  ISR.reset(unsigned(isrv));  // EOI retires the highest-priority in-service vector
  if (eoi_listener_) eoi_listener_->eoi(unsigned(isrv));
  wake();
}

// ---- timer --------------------------------------------------------------------------

unsigned LocalApic::divisor() const {
  const unsigned code = (TDCR & 3) | ((TDCR >> 1) & 4);  // TDCR bits 0, 1, 3
  return code == 7 ? 1 : 2u << code;
}

uint32_t LocalApic::current_count() const {
  if (!timer_running_) return 0;
  const sc_time dt = sc_core::sc_time_stamp() - timer_start_;
  uint64_t clocks = uint64_t((unsigned __int128)to_ps(dt) * bus_hz_ / kPsPerSecond);
  while (bus_clocks(clocks + 1) <= dt) ++clocks;
  while (clocks > 0 && bus_clocks(clocks) > dt) --clocks;
  const uint64_t ticks = clocks / divisor();
  if (ticks < timer_first_) return uint32_t(timer_first_ - ticks);
  if (!(LVTT & kLvtPeriodic)) return 0;
  return uint32_t(TMICT - (ticks - timer_first_) % TMICT);  // periodic: reloads at zero
}

void LocalApic::timer_rebase() {
  if (!timer_running_) return;
  const uint32_t c = current_count();
  timer_running_ = c != 0;
  timer_start_ = sc_core::sc_time_stamp();
  timer_first_ = c;
  timer_m_ = 0;
}

void LocalApic::timer_schedule() {
  timer_event_.cancel();
  if (!timer_running_) return;
  const uint64_t ticks = timer_first_ + timer_m_ * uint64_t(TMICT);
  timer_event_.notify(timer_start_ + bus_clocks(ticks * divisor()) - sc_core::sc_time_stamp());
}

void LocalApic::on_timer() {
  if (!(LVTT & kLvtMasked)) {
    set_irr(LVTT & 0xFF);
    ++timer_interrupts_;
    wake();
  }
  if (LVTT & kLvtPeriodic) {
    ++timer_m_;
    timer_schedule();
  } else {
    timer_running_ = false;  // one-shot: stays at zero
  }
}

}  // namespace latsim::cpu
