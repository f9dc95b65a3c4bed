#pragma once
// The blame ledger: where every picosecond of a CPU's time went over an interval (a traced
// section, a wake-up's blame window). All of a CPU's time passes inside its CpuOps calls; each call
// is split into the hardware's stalls (bus-master holdoff, PCI and ISA cycles, a full video FIFO, a
// spin, SMM, hlt) and the rest, the code's own execution, charged to the function,
// context and task that made the call. A section's items therefore sum to its length.
#include <cstdint>
#include <string>
#include <vector>
#include "kernel_sim/arch/cpu_ops.h"

namespace latsim::kernel {

enum class BlameKind : uint8_t {
  Code,       // executing: `fn` in `context` for task `pid`
  BusMaster,  // memory or PCI cycles held off the FSB by PCI master `id`'s transfer
  Pci,        // a CPU cycle to PCI (`fn` made it; `id`: the port or register)
  Isa,        // ISA cycles behind the PCI-ISA bridge (`id`: the port)
  VideoFifo,  // a full video command FIFO holding the bus (`id`: the register)
  Spin,       // spinning on lock `lock`, held by task `pid` on CPU `id`
  Smm,        // the BIOS's SMI handler
  Halted,     // hlt, waiting for an interrupt
};

// The context code ran in, as preempt_count and the task say (account_system_time()).
enum class BlameContext : uint8_t { User, Kernel, Irq, Softirq, Nmi, Idle };

// The disk request the IDE channel was moving when a bus master held the CPU off: the
// block layer's active request, and the task it was issued for (its first submitter).
struct BlameRequest {
  uint64_t seq = 0;  // the channel's command count: 1 for the first
  uint64_t sector = 0;
  uint32_t sectors = 0;
  bool write = false;
  int pid = -1;
  std::string comm;
};

struct BlameKey {
  BlameKind kind = BlameKind::Code;
  BlameContext context = BlameContext::Kernel;
  // Preemption or interrupts were off on the CPU (a critical section was open): nothing
  // could preempt the code, whatever woke meanwhile.
  bool critical = false;
  const char* fn = "";    // the kernel function running (the caller, for a stall)
  const char* lock = "";  // Spin: the lock's name
  int irq = -1;           // Irq/Nmi context: the outermost interrupt's source (intr_source)
  int pid = -1;           // the task whose code ran (Spin: the lock holder's)
  int prio = -1;          // Code: that task's priority then (Task::prio: 0..99 RT, 100..139)
  int64_t id = -1;        // BusMaster: PCI master; Pci/Isa/VideoFifo: port/address; Spin: CPU
  uint64_t request = 0;   // BusMaster: the IDE request in flight (BlameRequest::seq), 0: none
  // Names are the kernel's string literals, compared by address (a function named by two
  // literals gets two items; explain and metrics blame.* group them by name).
  bool operator==(const BlameKey& o) const {
    return kind == o.kind && context == o.context && critical == o.critical && irq == o.irq &&
           pid == o.pid && prio == o.prio && id == o.id && request == o.request && fn == o.fn &&
           lock == o.lock;
  }
};

struct BlameItem {
  BlameKey key;
  uint64_t ps = 0;
  std::string task;      // comm of key.pid (or of the lock holder) when the ledger was read
  BlameRequest request;  // BusMaster: the IDE request key.request names
};

// What a ledger's keys name, looked up when it is read: a task's comm by pid, an IDE
// request by its command number.
class BlameNames {
 public:
  virtual ~BlameNames() = default;
  virtual std::string comm(int pid) const = 0;
  virtual BlameRequest request(uint64_t seq) const = 0;
};

// Who keeps the ledger of each CPU's critical section: the tracer asks for it when it keeps
// a section, as the section closes.
class SectionBlame {
 public:
  virtual ~SectionBlame() = default;
  virtual std::vector<BlameItem> section_items(int cpu) const = 0;
};

// One interval's ledger. Charging appends (most sections are short and never read);
// reading merges by key, in order of first charge.
class BlameLedger {
 public:
  void clear() {
    raw_.clear();
    merged_.clear();
  }
  void charge(const BlameKey& key, uint64_t ps) {
    if (ps != 0) append(ps) = key;
  }
  // A charge of `ps` (> 0) whose key the caller fills in place, before the next append.
  BlameKey& append(uint64_t ps) {
    if (raw_.size() >= kCompactAt) compact();  // a long interval: memory stays bounded
    Charge& c = raw_.emplace_back();           // in place: no key built on the stack and copied
    c.ps = ps;
    return c.key;
  }
  std::vector<BlameItem> items(const BlameNames* names) const;
  uint64_t total_ps() const;

 private:
  struct Charge {
    BlameKey key;
    uint64_t ps = 0;
  };
  static std::vector<Charge> merge(const std::vector<Charge>& a, const std::vector<Charge>& b);
  void compact();
  static constexpr size_t kCompactAt = 1 << 16;
  std::vector<Charge> raw_, merged_;  // merged_: raw_ charges compacted, by key
};

// What the caller of one CpuOps call was doing, and where the call's time went.
struct BlameCall {
  int64_t port = -1;      // a port or MMIO call's address
  uint64_t start_ps = 0;  // when the call began
  uint64_t ps = 0;        // the call's length
  bool stalled = false;   // any stall at all (else `stalls` is all zero)
  StallTotals stalls;     // the CPU's stalls during it
  // The part from `from_ps` on, its stalls in proportion (where in the call each stall
  // fell is not known): a blame window that began inside the call gets this.
  BlameCall tail(uint64_t from_ps) const;
};

// Who made a call, as the kernel knows it: the code running and, for a spin, the lock.
struct BlameCaller {
  BlameKey code;      // kind Code, with context, fn and task
  BlameKey spin;      // kind Spin, with the lock and its holder
  uint64_t disk = 0;  // the IDE channel's request in flight (BlameRequest::seq), 0: none
};

// Split one call into the ledger: stalls by cause, the rest to the code.
void charge_call(BlameLedger& l, const BlameCall& c, const BlameCaller& who);

const char* blame_kind_name(BlameKind k);
const char* blame_context_name(BlameContext c);

}  // namespace latsim::kernel
