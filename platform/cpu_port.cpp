#include "platform/cpu_port.h"
#include <cstring>
#include "common/local_time.h"
#include "models/common/address_map.h"

namespace latsim::platform {

bool CpuPort::run(kernel::Work& w) {
  cpu::Work cw{w.cycles, w.misses};
  const bool done = cpu_.run(cw);
  w.cycles = cw.cycles;
  w.misses = cw.misses;
  return done;
}

bool CpuPort::take_call_stalls(kernel::StallTotals* out) {
  if (!cpu_.call_stalled()) return false;  // most calls: asked before a CallStalls is made
  if (!out) return cpu_.take_call(nullptr);
  cpu::CallStalls st;
  cpu_.take_call(&st);
  static_assert(std::tuple_size_v<decltype(st.held_off_by)> == kernel::StallTotals::kMasters + 1);
  kernel::StallTotals& t = *out;
  t.held_off = st.held_off_by;
  t.pci = st.stall.pci;
  t.isa = st.stall.isa;
  t.video_fifo = st.stall.video_fifo;
  t.spin = st.stall.spin;
  t.smm = st.stall.smm;
  t.halted = st.halted;
  return true;
}

kernel::Trap CpuPort::take_interrupt() {
  const cpu::Interrupt i = cpu_.take_interrupt();
  return {i.nmi, i.vector};
}

void CpuPort::iret(const kernel::Trap& t, bool prev_if) { cpu_.iret({t.nmi, t.vector}, prev_if); }

uint32_t CpuPort::access(uint64_t addr, uint32_t v, unsigned len, bool write) {
  tlm::tlm_generic_payload& p = payload_;  // one per CPU: a new one allocates its extensions
  uint8_t buf[4] = {};
  std::memcpy(buf, &v, len);
  p.set_address(addr);
  p.set_data_ptr(buf);
  p.set_data_length(len);
  p.set_streaming_width(len);
  p.set_byte_enable_ptr(nullptr);
  p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  cpu_.pci_access(p);
  uint32_t r = 0;
  std::memcpy(&r, buf, len);
  return r;
}

uint8_t CpuPort::inb(uint16_t port) { return uint8_t(access(io_addr(port), 0, 1, false)); }
void CpuPort::outb(uint8_t v, uint16_t port) { access(io_addr(port), v, 1, true); }
uint32_t CpuPort::inl(uint16_t port) { return access(io_addr(port), 0, 4, false); }
void CpuPort::outl(uint32_t v, uint16_t port) { access(io_addr(port), v, 4, true); }
uint32_t CpuPort::rep_ins(uint16_t port, unsigned width, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    if (i > 0 && cpu_.interrupt_deliverable()) return i;
    access(io_addr(port), 0, width, false);
  }
  return count;
}
uint32_t CpuPort::readl(uint64_t addr) { return access(addr, 0, 4, false); }
void CpuPort::writel(uint32_t v, uint64_t addr) { access(addr, v, 4, true); }

void CpuPort::mem_write(uint64_t addr, const void* data, size_t len) {
  local_time::sync();  // a bus master may read it from its next cycle
  // Write-back cached stores: their cost is in the caller's cycles/misses.
  cpu_.fsb().dram().write(addr, data, len);
}

uint16_t CpuPort::inw(uint16_t port) { return uint16_t(access(io_addr(port), 0, 2, false)); }
void CpuPort::outw(uint16_t v, uint16_t port) { access(io_addr(port), v, 2, true); }

void CpuPort::mem_read(uint64_t addr, void* data, size_t len) {
  local_time::sync();
  cpu_.fsb().dram().read(addr, data, len);
}

void CpuPort::send_ipi(int cpu, unsigned vector) {
  local_time::sync();
  // send_IPI_mask_bitmask: ICR2 = destination APIC ID, then ICR = fixed, physical, vector.
  cpu_.apic().write(cpu::LocalApic::APIC_ICR2, uint32_t(cpu) << 24);
  cpu_.apic().write(cpu::LocalApic::APIC_ICR, vector);
}

}  // namespace latsim::platform
