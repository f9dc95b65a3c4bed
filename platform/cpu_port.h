#pragma once
// The kernel's CpuOps on top of one Pentium III model: port and MMIO accesses
// become TLM transactions through the host bridge, IPIs go over the APIC bus.
#include "common/local_time.h"
#include "kernel_sim/arch/cpu_ops.h"
#include "models/cpu/e300_decrementer.h"
#include "models/cpu/pentium3.h"
#include "models/irq/apic_bus.h"

namespace latsim::platform {

class CpuPort : public kernel::CpuOps {
 public:
  // `dec`: the core's decrementer, on a board without local APICs (else null).
  CpuPort(cpu::Pentium3& cpu, double mhz, irq::ApicBus& apic_bus,
          cpu::E300Decrementer* dec = nullptr)
      : cpu_(cpu), mhz_(mhz), apic_bus_(apic_bus), dec_(dec) {}

  int id() const override { return cpu_.id(); }
  double mhz() const override { return mhz_; }
  uint64_t rdtsc() const override { return cpu_.rdtsc(); }
  bool run(kernel::Work& w) override;
  uint64_t cache_misses(const void* key, uint64_t footprint) override {
    return cpu_.l2_misses(key, footprint);
  }
  uint64_t coherence_misses(const void* key, uint64_t lines, bool write) override {
    return cpu_.coherence_misses(key, lines, write);
  }
  void forget(const void* key, size_t bytes) override { cpu_.forget(key, bytes); }
  bool interrupt_deliverable() const override { return cpu_.interrupt_deliverable(); }
  kernel::Trap take_interrupt() override;
  void iret(const kernel::Trap& t, bool prev_if) override;
  void hlt() override { cpu_.halt(); }
  bool spin_until(sc_core::sc_event& ev) override { return cpu_.spin_until(ev); }
  bool irqs_enabled() const override { return cpu_.interrupts_enabled(); }
  void set_irqs_enabled(bool on) override { cpu_.set_interrupt_flag(on); }

  uint8_t inb(uint16_t port) override;
  void outb(uint8_t v, uint16_t port) override;
  uint32_t inl(uint16_t port) override;
  void outl(uint32_t v, uint16_t port) override;
  uint32_t rep_ins(uint16_t port, unsigned width, uint32_t count) override;
  uint32_t readl(uint64_t addr) override;
  void writel(uint32_t v, uint64_t addr) override;
  void mem_write(uint64_t addr, const void* data, size_t len) override;
  uint16_t inw(uint16_t port) override;
  void outw(uint16_t v, uint16_t port) override;
  void mem_read(uint64_t addr, void* data, size_t len) override;

  // The local APIC's timer counts in SystemC time: sync first.
  uint32_t apic_read(unsigned offset) override {
    local_time::sync();
    return cpu_.apic().read(offset);
  }
  void apic_write(unsigned offset, uint32_t v) override {
    local_time::sync();
    cpu_.apic().write(offset, v);
  }
  void send_ipi(int cpu, unsigned vector) override;
  // A core register: no bus cycle; the decrementer counts in SystemC time, so sync first.
  void mtdec(uint32_t ticks) override {
    local_time::sync();
    if (dec_) dec_->mtdec(ticks);
  }
  bool take_call_stalls(kernel::StallTotals* out) override;
  const bool* call_stalled_flag() const override { return cpu_.call_stalled_flag(); }

 private:
  uint32_t access(uint64_t addr, uint32_t v, unsigned len, bool write);
  cpu::Pentium3& cpu_;
  double mhz_;
  irq::ApicBus& apic_bus_;
  cpu::E300Decrementer* dec_;
  tlm::tlm_generic_payload payload_;
};

}  // namespace latsim::platform
