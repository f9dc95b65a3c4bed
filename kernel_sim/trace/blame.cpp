#include "kernel_sim/trace/blame.h"
#include <cstring>

namespace latsim::kernel {

bool BlameKey::operator==(const BlameKey& o) const {
  // Names are the kernel's string literals, compared by content: one function, one key.
  return kind == o.kind && context == o.context && irq == o.irq && pid == o.pid && id == o.id &&
         request == o.request && std::strcmp(fn, o.fn) == 0 && std::strcmp(lock, o.lock) == 0;
}

void BlameLedger::charge(const BlameKey& key, uint64_t ps, const std::string& task,
                         const BlameRequest* request) {
  if (ps == 0) return;
  // Newest first: a section charges the same few keys over and over.
  for (auto it = items_.rbegin(); it != items_.rend(); ++it)
    if (it->key == key) {
      it->ps += ps;
      return;
    }
  items_.push_back({key, ps, task, request ? *request : BlameRequest{}});
}

uint64_t BlameLedger::total_ps() const {
  uint64_t t = 0;
  for (const auto& i : items_) t += i.ps;
  return t;
}

void charge_call(BlameLedger& l, const BlameCall& c, const BlameCaller& who) {
  uint64_t stalled = 0;
  static const std::string none;
  auto stall = [&](const BlameKey& k, const sc_time& before, const sc_time& after,
                   const std::string* task) {
    const uint64_t d = (after - before).value();
    l.charge(k, d, task ? *task : none);
    stalled += d;
  };
  BlameKey k = who.code;
  k.kind = BlameKind::BusMaster;
  k.request = who.disk ? who.disk->seq : 0;
  for (size_t m = 0; m < c.after.held_off.size(); ++m) {
    k.id = m + 1 < c.after.held_off.size() ? int64_t(m) : -1;
    const uint64_t d = (c.after.held_off[m] - c.before.held_off[m]).value();
    l.charge(k, d, who.comm ? *who.comm : none, who.disk);
    stalled += d;
  }
  k.request = 0;
  k.id = c.port;
  k.kind = BlameKind::Pci;
  stall(k, c.before.pci, c.after.pci, who.comm);
  k.kind = BlameKind::Isa;
  stall(k, c.before.isa, c.after.isa, who.comm);
  k.kind = BlameKind::VideoFifo;
  stall(k, c.before.video_fifo, c.after.video_fifo, who.comm);
  stall(who.spin, c.before.spin, c.after.spin, who.holder_comm);
  k = who.code;
  k.kind = BlameKind::Smm;
  stall(k, c.before.smm, c.after.smm, who.comm);
  k.kind = BlameKind::Halted;
  stall(k, c.before.halted, c.after.halted, who.comm);
  // The rest of the call is the code's own execution (cache misses' DRAM latency included).
  l.charge(who.code, c.ps > stalled ? c.ps - stalled : 0, who.comm ? *who.comm : none);
}

const char* blame_kind_name(BlameKind k) {
  switch (k) {
    case BlameKind::Code:
      return "code";
    case BlameKind::BusMaster:
      return "bus_master";
    case BlameKind::Pci:
      return "pci";
    case BlameKind::Isa:
      return "isa";
    case BlameKind::VideoFifo:
      return "video_fifo";
    case BlameKind::Spin:
      return "spin";
    case BlameKind::Smm:
      return "smm";
    case BlameKind::Halted:
      return "halted";
  }
  return "?";
}

const char* blame_context_name(BlameContext c) {
  switch (c) {
    case BlameContext::User:
      return "user";
    case BlameContext::Kernel:
      return "kernel";
    case BlameContext::Irq:
      return "irq";
    case BlameContext::Softirq:
      return "softirq";
    case BlameContext::Nmi:
      return "nmi";
    case BlameContext::Idle:
      return "idle";
  }
  return "?";
}

}  // namespace latsim::kernel
