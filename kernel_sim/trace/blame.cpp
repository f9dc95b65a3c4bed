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

BlameCall BlameCall::tail(uint64_t from_ps) const {
  BlameCall t = *this;
  const uint64_t part = start_ps + ps > from_ps ? start_ps + ps - from_ps : 0;
  t.start_ps = from_ps;
  t.ps = part;
  auto scale = [&](sc_time& s) {  // 128-bit: ps * ps overflows 64 bits past ~4 s
    s = sc_time::from_value(uint64_t((unsigned __int128)s.value() * part / (ps ? ps : 1)));
  };
  for (auto& h : t.stalls.held_off) scale(h);
  for (sc_time* s : {&t.stalls.pci, &t.stalls.isa, &t.stalls.video_fifo, &t.stalls.spin,
                     &t.stalls.smm, &t.stalls.halted})
    scale(*s);
  return t;
}

void charge_call(BlameLedger& l, const BlameCall& c, const BlameCaller& who) {
  static const std::string none;
  const std::string& comm = who.comm ? *who.comm : none;
  uint64_t stalled = 0;
  auto stall = [&](const BlameKey& k, const sc_time& d, const std::string& task,
                   const BlameRequest* req = nullptr) {
    l.charge(k, d.value(), task, req);
    stalled += d.value();
  };
  BlameKey k = who.code;
  k.kind = BlameKind::BusMaster;
  k.request = who.disk ? who.disk->seq : 0;
  for (size_t m = 0; m < c.stalls.held_off.size(); ++m) {
    k.id = m + 1 < c.stalls.held_off.size() ? int64_t(m) : -1;
    stall(k, c.stalls.held_off[m], comm, who.disk);
  }
  k.request = 0;
  k.id = c.port;
  k.kind = BlameKind::Pci;
  stall(k, c.stalls.pci, comm);
  k.kind = BlameKind::Isa;
  stall(k, c.stalls.isa, comm);
  k.kind = BlameKind::VideoFifo;
  stall(k, c.stalls.video_fifo, comm);
  stall(who.spin, c.stalls.spin, who.holder_comm ? *who.holder_comm : none);
  k = who.code;
  k.kind = BlameKind::Smm;
  stall(k, c.stalls.smm, comm);
  k.kind = BlameKind::Halted;
  stall(k, c.stalls.halted, comm);
  // The rest of the call is the code's own execution (cache misses' DRAM latency included).
  l.charge(who.code, c.ps > stalled ? c.ps - stalled : 0, comm);
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
