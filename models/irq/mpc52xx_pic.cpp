#include "models/irq/mpc52xx_pic.h"
#include "common/log.h"
#include "models/common/knobs.h"
#include "models/common/register_transport.h"

namespace latsim::irq {

params::Table<Mpc52xxPicParams> mpc52xx_pic_keys() {
  using namespace params;
  return {
      bind(knobs::fitted(
               "mpc52xx_pic",
               "the board's interrupts go through the MPC5200's own controller "
               "(critical/main/peripheral groups, mpc52xx_get_irq) to the core's "
               "int#; false: the PC's 8259A or IO-APIC",
               "MPC5200BUM: Interrupt Controller; Linux arch/powerpc/sysdev/mpc52xx_pic.c"),
           &Mpc52xxPicParams::fitted),
  };
}

Mpc52xxPic::Mpc52xxPic(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
  socket.register_b_transport(this, &Mpc52xxPic::b_transport);
}

void Mpc52xxPic::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
  register_transport(*this, p);
}

uint32_t Mpc52xxPic::read(uint64_t offset, unsigned) {
  switch (offset) {
    case PER_MASK:
      return per_mask_;
    case PER_PRI1:
    case PER_PRI2:
    case PER_PRI3:
      return per_pri_[(offset - PER_PRI1) / 4];
    case CTRL:
      return ctrl_;
    case MAIN_MASK:
      return main_mask_;
    case MAIN_PRI1:
    case MAIN_PRI2:
      return main_pri_[(offset - MAIN_PRI1) / 4];
    case ENC_STATUS:
      return enc_status();
    case CRIT_STATUS: {
      uint32_t v = 0;  // source n at bit 31 - n, as the mask registers number them
      for (unsigned n = 0; n < kCritical; ++n) v |= uint32_t(crit_pending(n)) << (31 - n);
      return v;
    }
    case MAIN_STATUS: {
      uint32_t v = 0;
      for (unsigned n = 0; n < kMain; ++n) v |= uint32_t(main_pending(n)) << (16 - n);
      return v;
    }
    case PER_STATUS: {
      uint32_t v = 0;
      for (unsigned n = 0; n < kPeripheral; ++n) v |= uint32_t(per_pending(n)) << (31 - n);
      return v;
    }
    default:
      return 0;  // PER_ERROR and the reserved words: no error source is modelled
  }
}

void Mpc52xxPic::write(uint64_t offset, unsigned, uint32_t v) {
  switch (offset) {
    case PER_MASK:
      per_mask_ = v;
      break;
    case PER_PRI1:
    case PER_PRI2:
    case PER_PRI3:
      per_pri_[(offset - PER_PRI1) / 4] = v;
      break;
    case CTRL:
      ctrl_ = v & ~0x0f000000u;
      break;  // bits 24-27 clear IRQ[0-3] edges: not stored
    case MAIN_MASK:
      main_mask_ = v & 0x0001ffff;
      break;
    case MAIN_PRI1:
    case MAIN_PRI2:
      main_pri_[(offset - MAIN_PRI1) / 4] = v;
      break;
    default:
      return;  // status registers are read-only (the PSe sticky clear is not modelled)
  }
  update();
}

void Mpc52xxPic::irq_set(unsigned pin, bool level) {
  if (pin < kCritical)
    crit_in_[pin] = level;
  else if (pin < kCritical + kMain)
    main_in_[pin - kCritical] = level;
  else if (pin < kCritical + kMain + kPeripheral)
    per_in_[pin - kCritical - kMain] = level;
  update();
}

// MPC5200BUM 7.2.4.2: four bits per peripheral, the msb the HI/LO bank bit; peripheral 0
// (BestComm) is fixed as the highest and always HI, its bits have no effect.
unsigned Mpc52xxPic::per_priority(unsigned n) const {
  if (n == kPerBestcomm) return 0x1f;
  return (per_pri_[n / 8] >> (28 - 4 * (n % 8))) & 0xf;
}
bool Mpc52xxPic::per_hi(unsigned n) const { return per_priority(n) >= 8; }
bool Mpc52xxPic::per_pending(unsigned n) const {
  return per_in_[n] && !(per_mask_ & (1u << (31 - n)));
}

// The main group's summary of the LO peripherals is its source 4 (LO_int); the critical
// group's of the HI ones is its source 2 (HI_int): mpc52xx_get_irq's two peripheral gotos.
bool Mpc52xxPic::main_pending(unsigned n) const {
  if (main_mask_ & (1u << (16 - n))) return false;
  if (n == kMainLoInt) {
    for (unsigned p = 0; p < kPeripheral; ++p)
      if (per_pending(p) && !per_hi(p)) return true;
    return false;
  }
  return main_in_[n];
}
bool Mpc52xxPic::crit_pending(unsigned n) const {
  if (n == kCritHiInt) {
    for (unsigned p = 0; p < kPeripheral; ++p)
      if (per_pending(p) && per_hi(p)) return true;
    return false;
  }
  return crit_in_[n];  // assumption: IRQ0, slice timer 0 and wake-up are not maskable here
}

// Highest priority value first; equal priorities: the lower-numbered source (MPC5200BUM
// 7.2.4.2, "lower peripheral has higher priority").
int Mpc52xxPic::highest_per() const {
  int best = -1;
  for (unsigned n = 0; n < kPeripheral; ++n)
    if (per_pending(n) && (best < 0 || per_priority(n) > per_priority(unsigned(best))))
      best = int(n);
  return best;
}
int Mpc52xxPic::highest_main() const {
  // Assumption: main priorities as the peripherals', four bits per source from the msb of
  // MAIN_PRI1 (sources 0-7) and MAIN_PRI2 (8-15); source 16 has priority 0.
  const auto pri = [&](unsigned n) {
    return n < 16 ? (main_pri_[n / 8] >> (28 - 4 * (n % 8))) & 0xf : 0u;
  };
  int best = -1;
  for (unsigned n = 0; n < kMain; ++n)
    if (main_pending(n) && (best < 0 || pri(n) > pri(unsigned(best)))) best = int(n);
  return best;
}
int Mpc52xxPic::highest_crit() const {
  for (unsigned n = 0; n < kCritical; ++n)  // assumption: fixed order, source 0 first
    if (crit_pending(n)) return int(n);
  return -1;
}

uint32_t Mpc52xxPic::enc_status() const {
  uint32_t v = 0;
  if (const int p = highest_per(); p >= 0) v |= ENC_PSE | uint32_t(p) << ENC_PSN_SHIFT;
  if (const int m = highest_main(); m >= 0) v |= ENC_MSE | uint32_t(m) << ENC_MSN_SHIFT;
  if (const int c = highest_crit(); c >= 0) v |= ENC_CSE | uint32_t(c) << ENC_CSN_SHIFT;
  return v | (ctrl_ & CTRL_CEB);  // CEbSh: the CEb setting, shadowed
}

// int#: any main source, or a critical one CEb routes to it; cint#: a critical one otherwise.
void Mpc52xxPic::update() {
  const bool crit = highest_crit() >= 0, main = highest_main() >= 0;
  const bool to_int = main || (crit && (ctrl_ & CTRL_CEB));
  if (to_int && !core_int.level()) {
    int_assertions_++;
    LATSIM_DEBUG(apic, name(), "int# asserted: encoded status {:#010x}", enc_status());
  }
  core_int.set(to_int);
  core_cint.set(crit && !(ctrl_ & CTRL_CEB));
}

}  // namespace latsim::irq
