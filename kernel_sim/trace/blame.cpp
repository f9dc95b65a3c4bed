#include "kernel_sim/trace/blame.h"
#include <absl/container/flat_hash_map.h>
#include <tuple>

namespace latsim::kernel {
namespace {

// Keys by value: names by address, as operator== compares them.
struct KeyHash {
  size_t operator()(const BlameKey& k) const {
    return absl::Hash<
        std::tuple<int, int, bool, int, int, int64_t, uint64_t, const void*, const void*>>()(
        {int(k.kind), int(k.context), k.critical, k.irq, k.pid, k.id, k.request, k.fn, k.lock});
  }
};

}  // namespace

std::vector<BlameLedger::Charge> BlameLedger::merge(const std::vector<Charge>& a,
                                                    const std::vector<Charge>& b) {
  std::vector<Charge> out;
  absl::flat_hash_map<BlameKey, size_t, KeyHash> index;  // key -> out index
  for (const auto* v : {&a, &b})
    for (const Charge& c : *v) {
      const auto [it, added] = index.try_emplace(c.key, out.size());
      if (added) out.push_back({c.key, 0});
      out[it->second].ps += c.ps;
    }
  return out;
}

void BlameLedger::compact() {
  merged_ = merge(merged_, raw_);
  raw_.clear();
}

std::vector<BlameItem> BlameLedger::items(const BlameNames* names) const {
  std::vector<BlameItem> out;
  for (const Charge& c : merge(merged_, raw_)) {
    BlameItem i{c.key, c.ps, "", {}};
    if (names && c.key.pid >= 0) i.task = names->comm(c.key.pid);
    if (names && c.key.request) i.request = names->request(c.key.request);
    out.push_back(std::move(i));
  }
  return out;
}

uint64_t BlameLedger::total_ps() const {
  uint64_t t = 0;
  for (const auto* v : {&merged_, &raw_})
    for (const Charge& c : *v) t += c.ps;
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
  if (!c.stalled) return l.charge(who.code, c.ps);  // most calls: all code
  uint64_t stalled = 0;
  auto stall = [&](const BlameKey& k, const sc_time& d) {
    l.charge(k, d.value());
    stalled += d.value();
  };
  BlameKey k = who.code;
  k.kind = BlameKind::BusMaster;
  k.request = who.disk;
  for (size_t m = 0; m < c.stalls.held_off.size(); ++m) {
    k.id = m + 1 < c.stalls.held_off.size() ? int64_t(m) : -1;
    stall(k, c.stalls.held_off[m]);
  }
  k.request = 0;
  k.id = c.port;
  k.kind = BlameKind::Pci;
  stall(k, c.stalls.pci);
  k.kind = BlameKind::Isa;
  stall(k, c.stalls.isa);
  k.kind = BlameKind::VideoFifo;
  stall(k, c.stalls.video_fifo);
  stall(who.spin, c.stalls.spin);
  k = who.code;
  k.kind = BlameKind::Smm;
  stall(k, c.stalls.smm);
  k.kind = BlameKind::Halted;
  stall(k, c.stalls.halted);
  // The rest of the call is the code's own execution (cache misses' DRAM latency included).
  l.charge(who.code, c.ps > stalled ? c.ps - stalled : 0);
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
