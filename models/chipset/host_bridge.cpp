#include "models/chipset/host_bridge.h"
#include <algorithm>
#include <cstring>
#include <vector>
#include "common/log.h"
#include "models/common/address_map.h"
#include "models/common/knobs.h"

namespace latsim::chipset {

params::Table<HostBridgeParams> host_bridge_keys() {
  using namespace params;
  using P = HostBridgeParams;
  using H = CpuHoldoff;
  return {
      knobs::bind_enum(
          with_source(of_type(ValueType::Enum, "cpu_holdoff",
                              "how long a bus master keeps the CPU off the host bridge"),
                      "CALIBRATION.md observations O4: one 4 KB scatter-gather entry per ~70 us "
                      "CPU stall"),
          &P::holdoff,
          {{H::None, "none"},
           {H::SgEntry, "sg_entry"},
           {H::Grants, "grants"},
           {H::Rotate, "rotate"},
           {H::ReqAsserted, "req_asserted"}}),
      bind(with_source(integer("holdoff_grants", 1, 64, "grants",
                               "bus-master requests served before the CPU gets the bridge "
                               "(grants policy)"),
                       "CALIBRATION.md PCI: VIA 8363/8371/8361 + 686B hold the CPU off for 3 "
                       "bus-master requests"),
           &P::holdoff_grants),
      bind(with_source(of_type(ValueType::Bool, "io_holdoff",
                               "the holdoff applies to CPU cycles to PCI (PIT, IO-APIC, device "
                               "registers) as to memory requests; false: only memory requests "
                               "wait, a PCI cycle waits for GNT# (the master's burst, bounded by "
                               "its latency timer)"),
                       "assumption: CPU cycles to PCI are held off as memory requests are"),
           &P::io_holdoff),
      bind(with_source(of_type(ValueType::Bool, "io_waits_req",
                               "req_asserted policy: a CPU cycle to PCI (PIT, IO-APIC) waits until "
                               "the master drops REQ# like a memory miss; false: to the end of "
                               "the entry"),
                       "assumption"),
           &P::io_waits_req),
      bind(with_source(integer("posted_write_entries", 0, 64, "dwords",
                               "CPU-to-PCI posted-write buffer; a CPU store stalls only when it "
                               "is full"),
                       "assumption: VIA 694X-class north bridges post a few dwords (4-8); no "
                       "datasheet at hand"),
           &P::posted_write_entries),
  };
}

HostBridge::HostBridge(sc_core::sc_module_name name, const HostBridgeParams& p, pci::PciBus& pci,
                       Dram& dram)
    : sc_module(name), pci_socket("pci_socket"), p_(p), pci_(pci), dram_(dram) {
  pci_socket.bind(pci_.host_socket);
  pci_.add_listener(*this);
  SC_HAS_PROCESS(HostBridge);
  SC_THREAD(drain);
}

void HostBridge::master_traffic(const pci::BurstTrain& train) {
  prune(sc_core::sc_time_stamp());
  trains_.push_back(train);
  changed_.notify(SC_ZERO_TIME);
}

void HostBridge::master_traffic_deferred(const pci::BurstTrain& before,
                                         const pci::BurstTrain& after) {
  for (auto& tr : trains_)
    if (tr.master == before.master && tr.start == before.start && tr.end == before.end) tr = after;
  changed_.notify(SC_ZERO_TIME);
}

void HostBridge::prune(sc_time now) {
  trains_.erase(std::remove_if(trains_.begin(), trains_.end(),
                               [&](const pci::BurstTrain& t) { return t.req_end() <= now; }),
                trains_.end());
}

sc_time HostBridge::hold_end(const pci::BurstTrain& tr, bool io) const {
  if (p_.holdoff == CpuHoldoff::ReqAsserted && (!io || p_.io_waits_req)) return tr.req_end();
  return tr.end;
}

sc_time HostBridge::ready_in(const pci::BurstTrain& tr, sc_time t, bool io) const {
  if (!tr.to_memory || (io && !p_.io_holdoff) || t < tr.start || t >= hold_end(tr, io)) return t;
  switch (p_.holdoff) {
    case CpuHoldoff::None:
      return t;
    case CpuHoldoff::SgEntry:
      return tr.end;  // the whole entry goes through before the CPU is let back on
    case CpuHoldoff::Grants: {
      if (tr.period == SC_ZERO_TIME) return tr.end;
      const uint64_t k = to_ps(t - tr.start) / to_ps(tr.period);
      const uint64_t n = uint64_t(std::max(1, p_.holdoff_grants));
      const uint64_t last = (k / n) * n + n - 1;  // last grant of this group
      sc_time group_end = tr.start + ps(last * to_ps(tr.period)) + tr.tenure;
      group_end = std::min(group_end, tr.end);
      return std::max(t, group_end);
    }
    case CpuHoldoff::Rotate:
      return tr.burst_end_at(t);  // priority rotates on every grant
    case CpuHoldoff::ReqAsserted:
      return hold_end(tr, io);  // the master outranks the CPU until REQ# drops
  }
  return t;
}

sc_time HostBridge::cpu_ready(sc_time t) const { return ready_at(t, false); }

sc_time HostBridge::ready_at(sc_time t, bool io) const {
  // Each train holds the CPU off once: when its hold (a burst, a group of grants, an
  // entry, a run) ends, the CPU's request goes before that master's next one, even when
  // the master's bursts are back to back. Another master's train may still hold it.
  sc_time r = t;
  waited_.assign(trains_.size(), false);  // reuses its storage: this runs on every miss
  for (bool moved = true; moved;) {
    moved = false;
    for (size_t i = 0; i < trains_.size(); ++i) {
      if (waited_[i]) continue;
      sc_time x = ready_in(trains_[i], r, io);
      if (x > r) r = x, moved = true, waited_[i] = true;
    }
  }
  return r;
}

int HostBridge::holding_master(sc_time t) const {
  for (const auto& tr : trains_)
    if (ready_in(tr, t) > t) return tr.master;
  return -1;
}

sc_time HostBridge::next_holdoff(sc_time t) const {
  sc_time best = sc_core::sc_max_time();
  if (p_.holdoff == CpuHoldoff::None) return best;
  for (const auto& tr : trains_) {
    if (!tr.to_memory || hold_end(tr, false) <= t) continue;
    best = std::min(best, tr.start > t ? tr.start : t);
  }
  return best;
}

AccessStall HostBridge::cpu_pci_access(tlm::tlm_generic_payload& p) {
  // PCI 2.2 3.2.5: a bridge may post memory writes, never I/O writes.
  if (p.is_write() && p.get_address() < kIoSpace && p_.posted_write_entries > 0) return post(p);
  AccessStall st;
  const sc_time now = sc_core::sc_time_stamp();
  // Under ReqAsserted the cycle waits for REQ# to drop as a miss does (io_waits_req):
  // it needs the FSB, which the bridge keeps while the master's writes stream in, and then
  // GNT# from a fixed-priority arbiter in which the master outranks the host bridge.
  // io_waits_req=false models an arbiter that grants the host between entries (the PRD
  // fetch re-arbitrates) while DRAM stays with the master: the CPU waits one entry.
  const sc_time fsb = ready_at(now, true);
  if (fsb > now) st.memory_master = holding_master(now);
  const uint64_t ticket = next_ticket_++;
  wait_turn(ticket, &st);
  const sc_time turn = sc_core::sc_time_stamp();
  stats_.ordering_wait += turn - now;
  if (fsb > turn) st.memory = fsb - turn;  // the holdoff beyond the queue wait
  pci_cycle(p, std::max(turn, fsb + p_.cpu_to_pci), &st);
  next_turn();
  return st;
}

AccessStall HostBridge::post(tlm::tlm_generic_payload& p) {
  AccessStall st;
  const sc_time now = sc_core::sc_time_stamp();
  const sc_time fsb = ready_at(now, true);  // as cpu_pci_access
  st.memory = fsb - now;
  if (fsb > now) st.memory_master = holding_master(now);
  const sc_time accepted = fsb + p_.cpu_to_pci;  // the FSB write, into the bridge
  if (accepted > now) sc_core::wait(accepted - now);
  // No free entry: the store cannot retire, so the core is stuck mid-instruction.
  const sc_time full = sc_core::sc_time_stamp();
  while (int(posted_.size()) >= p_.posted_write_entries) wait_slot(&st);
  stats_.buffer_full_stall += sc_core::sc_time_stamp() - full;
  PostedWrite w{p.get_address(),
                {},
                std::min(p.get_data_length(), 8u),
                sc_core::sc_time_stamp(),
                next_ticket_++};
  std::memcpy(w.data, p.get_data_ptr(), w.len);
  posted_.push_back(w);
  stats_.posted_writes++;
  stats_.max_posted = std::max(stats_.max_posted, int(posted_.size()));
  posted_ev_.notify(SC_ZERO_TIME);
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  return st;
}

void HostBridge::drain() {
  for (;;) {
    while (posted_.empty()) sc_core::wait(posted_ev_);
    PostedWrite w = posted_.front();
    wait_turn(w.ticket);
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_address(w.addr);
    p.set_data_ptr(w.data);
    p.set_data_length(w.len);
    p.set_streaming_width(w.len);
    p.set_byte_enable_ptr(nullptr);
    pci_cycle(p, std::max(sc_core::sc_time_stamp(), w.ready));
    posted_.pop_front();  // the entry is free once the target has taken the data
    next_turn();
  }
}

void HostBridge::wait_turn(uint64_t ticket, AccessStall* st) {
  while (serving_ != ticket) wait_slot(st);
}

void HostBridge::wait_slot(AccessStall* st) {
  const sc_time t0 = sc_core::sc_time_stamp();
  sc_core::wait(turn_ev_);
  if (st) st->add(last_done_, sc_core::sc_time_stamp() - t0);
}

void HostBridge::next_turn() {
  serving_++;
  turn_ev_.notify(SC_ZERO_TIME);
}

void HostBridge::pci_cycle(tlm::tlm_generic_payload& p, sc_time req, AccessStall* st) {
  const uint64_t addr = p.get_address();  // the bus rewrites it to the target's offset
  sc_time grant = pci_.host_grant_time(req);
  pci::StallClass done_as = pci::StallClass::Pci;
  for (;;) {
    const sc_time now = sc_core::sc_time_stamp();
    if (grant > now) {
      LATSIM_DEBUG(fsb, name(), "PCI cycle to {:#x} waits {} for GNT#", addr, grant - now);
      // Another CPU's ISA cycle or held video write may be what keeps GNT# away.
      if (st) {
        const sc_time from = std::max(now, req);  // before req the FSB is the cause
        st->isa += pci_.held_by(pci::StallClass::Isa, from, grant);
        st->video_fifo += pci_.held_by(pci::StallClass::VideoFifo, from, grant);
      }
      sc_core::wait(grant - now);
    }
    const sc_time attempt = sc_core::sc_time_stamp();  // GNT# of this attempt
    sc_time delay = SC_ZERO_TIME;
    p.set_address(addr);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    pci_socket->b_transport(p, delay);
    const pci::TargetCycle cycle = pci_.last_cycle();
    if (cycle.cls != pci::StallClass::Pci) done_as = cycle.cls;
    if (delay > SC_ZERO_TIME) sc_core::wait(delay);
    if (!pci::is_retry(p)) {
      if (st) st->add(cycle.cls, cycle.target_time);  // wait states of an ISA or video target
      last_done_ = done_as;
      if (st) pci_.record_cpu_wait(attempt - req);  // the CPU stalls on this one
      return;
    }
    // Retry: the master releases REQ#, the bus is free meanwhile, then it re-arbitrates.
    stats_.retries++;
    LATSIM_DEBUG(fsb, name(), "PCI cycle to {:#x} retried by the target", addr);
    const sc_time backoff = pci_.clock() * double(p_.retry_backoff_clocks);
    if (st) st->add(cycle.cls, sc_core::sc_time_stamp() - attempt + backoff);  // the lost attempt
    grant = pci_.host_grant_time(sc_core::sc_time_stamp() + backoff);
  }
}

}  // namespace latsim::chipset
