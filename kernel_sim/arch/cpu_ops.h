#pragma once
// The narrow interface between the simulated kernel and the hardware models
// (docs/ARCHITECTURE.md, "The CpuOps seam"). Every call advances simulated time
// by what the hardware says it costs now; nothing here knows kernel concepts.
#include <array>
#include <cstddef>
#include <cstdint>
#include <systemc>

namespace latsim::kernel {

using sc_core::sc_time;

// Work for the core: N cycles of cached code with M cache-line misses to DRAM.
struct Work {
  uint64_t cycles = 0;
  uint64_t misses = 0;
};

// An interrupt the core has accepted (IDT vector, or NMI).
struct Trap {
  bool nmi = false;
  unsigned vector = 0;
};

// The time a CPU could not retire instructions during its last call, by cause: the blame
// ledger (trace/blame.h) splits each call with it. The rest of a call's time is the
// code's own execution, its cache misses' DRAM latency included.
struct StallTotals {
  // Misses and PCI cycles held off the FSB by bus-master traffic, by PCI master (the
  // host bridge is master 0); the last slot: a master the bridge could not name.
  static constexpr int kMasters = 8;
  std::array<sc_time, kMasters + 1> held_off{};
  sc_time pci;         // CPU cycles to PCI: GNT#, ordering behind earlier cycles, the cycle
  sc_time isa;         // ISA cycles through the PCI-ISA bridge
  sc_time video_fifo;  // a full video FIFO: held wait states and Retries
  sc_time spin;        // spinning on a lock held by another CPU
  sc_time smm;         // the BIOS's SMI handler
  sc_time halted;      // hlt: waiting for an interrupt
};

class CpuOps {
 public:
  virtual ~CpuOps() = default;
  virtual int id() const = 0;
  virtual double mhz() const = 0;
  virtual uint64_t rdtsc() const = 0;

  // How many of `footprint` cache lines of `key` (a code path) miss in L2 now.
  virtual uint64_t cache_misses(const void* key, uint64_t footprint) = 0;
  // FSB transactions to read (write=false) or write `lines` lines of shared kernel data
  // `key` that another CPU wrote, or holds, since this one last had them (MESI).
  virtual uint64_t coherence_misses(const void*, uint64_t, bool) { return 0; }
  // The object of `bytes` at `key` is freed: the caches' history of its lines goes with
  // it, so an object later allocated at the same address starts cold.
  virtual void forget(const void* key, size_t bytes) = 0;
  // Run `w` until done (true) or until an interrupt is deliverable (false, rest left in w).
  virtual bool run(Work& w) = 0;
  virtual bool interrupt_deliverable() const = 0;
  virtual Trap take_interrupt() = 0;  // clears IF, as an interrupt gate does
  virtual void iret(const Trap& t, bool prev_if) = 0;
  virtual void hlt() = 0;                              // sleep until an interrupt is deliverable
  virtual bool spin_until(sc_core::sc_event& ev) = 0;  // false: an interrupt came first

  virtual bool irqs_enabled() const = 0;
  virtual void set_irqs_enabled(bool on) = 0;  // cli / sti

  // x86 port I/O and uncached MMIO: through the host bridge and PCI.
  virtual uint8_t inb(uint16_t port) = 0;
  virtual void outb(uint8_t v, uint16_t port) = 0;
  virtual uint32_t inl(uint16_t port) = 0;
  virtual void outl(uint32_t v, uint16_t port) = 0;
  // rep insw/insl: `count` reads of `width` bytes from one port. The string
  // instruction is interruptible between iterations: returns how many were done
  // when an interrupt became deliverable first.
  virtual uint32_t rep_ins(uint16_t port, unsigned width, uint32_t count) = 0;
  virtual uint32_t readl(uint64_t addr) = 0;
  virtual void writel(uint32_t v, uint64_t addr) = 0;
  // Cached stores that a bus master will later read (PRD tables).
  virtual void mem_write(uint64_t addr, const void* data, size_t len) = 0;
  // 16-bit port I/O (RTL8139 IntrStatus, RxBufPtr) and cached loads of what a bus
  // master wrote (an Rx ring header); a load's miss cost is in the caller's Work.
  virtual uint16_t inw(uint16_t port) = 0;
  virtual void outw(uint16_t v, uint16_t port) = 0;
  virtual void mem_read(uint64_t addr, void* data, size_t len) = 0;

  // On-chip local APIC: no bus cycle.
  virtual uint32_t apic_read(unsigned offset) = 0;
  virtual void apic_write(unsigned offset, uint32_t v) = 0;
  virtual void send_ipi(int cpu, unsigned vector) = 0;
  // e300 core register: mtspr DEC, the decrementer's next count (time-base ticks); a core
  // without a decrementer ignores it.
  virtual void mtdec(uint32_t /*ticks*/) {}

  // Hands the blame ledger the stalls since the last take (the end of the caller's previous
  // call), into `out` unless null, and starts afresh; false: none. A CPU model without
  // stalls has none: all is execution.
  virtual bool take_call_stalls(StallTotals* /*out*/) { return false; }
  // Where the model keeps "a stall since the last take" (read on every call's end while the
  // ledger is on, without a call); null: ask take_call_stalls every time.
  virtual const bool* call_stalled_flag() const { return nullptr; }
};

}  // namespace latsim::kernel
