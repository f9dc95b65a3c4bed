#include "models/pci/pci_bus.h"
#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>
#include "common/log.h"
#include "models/common/knobs.h"
#include "models/pci/target_termination.h"

namespace latsim::pci {

params::Table<PciBusParams> pci_bus_keys() {
  using namespace params;
  using P = PciBusParams;
  return {
      bind(with_source(number("mhz", 20, 66.67, "MHz", "PCI bus clock"),
                       "CALIBRATION.md PCI: 33.33 MHz, 30 ns clock"),
           &P::mhz),
      bind(with_source(integer("latency_timer", 0, 255, "clocks",
                               "master latency timer (setpci latency_timer): tenure after GNT# is "
                               "removed"),
                       "CALIBRATION.md PCI: pcibios_set_master sets 64 if the BIOS left < 16; "
                       "assumption: it did"),
           &P::latency_timer),
      knobs::bind_enum(
          with_source(choice("arbiter", {},
                             "arbitration: rotate priority on every grant, or fixed "
                             "priority"),
                      "CALIBRATION.md PCI: quirk_vialatency sets north-bridge reg "
                      "0x76 to rotate priority every grant"),
          &P::arbiter,
          {{ArbitrationPolicy::Rotate, "rotate"}, {ArbitrationPolicy::Fixed, "fixed"}}),
      bind(with_source(with_unit(int_choice("width_bits", {"32", "64"},
                                            "AD bus width: bytes a burst moves per clock (64: "
                                            "REQ64#)"),
                                 "bits"),
                       "CALIBRATION.md PCI: 32-bit AD bus, 4 bytes per data phase"),
           &P::width_bits),
  };
}

PciBus::PciBus(sc_core::sc_module_name name, const PciBusParams& p)
    : sc_module(name),
      host_socket("host_socket"),
      target_socket("target_socket"),
      clk_(period_of_mhz(p.mhz)),
      lt_(p.latency_timer, clk_),
      arbiter_(p.arbiter),
      bytes_per_clock_(p.width_bits / 8) {
  host_socket.register_b_transport(this, &PciBus::b_transport);
  stats_.cpu_wait_hist.assign(cpu_wait_buckets_us().size() + 1, 0);
}

void PciBus::map(uint64_t base, uint64_t size, int port, const std::string& name,
                 int initial_latency_clocks, uint64_t target_offset) {
  map_.add(base, size, port, name, initial_latency_clocks, target_offset);
}

int PciBus::add_master(const std::string& name, DeferHandler on_defer, PciConfig* config) {
  masters_.push_back(name);
  on_defer_.push_back(std::move(on_defer));
  configs_.push_back(config);
  if (config) config->set_latency_timer(uint8_t(lt_.clocks()));
  return int(masters_.size()) - 1;
}

PciConfig* PciBus::function(const std::string& name) const {
  for (size_t m = 0; m < masters_.size(); ++m)
    if (masters_[m] == name) return configs_[m];
  return nullptr;
}

LatencyTimer PciBus::timer_of(int master) const {
  const PciConfig* c = size_t(master) < configs_.size() ? configs_[size_t(master)] : nullptr;
  return c ? LatencyTimer(c->latency_timer(), clk_) : lt_;
}

void PciBus::announce(const BurstTrain& train) {
  prune(sc_core::sc_time_stamp());
  LATSIM_DEBUG(pci, name(), "REQ# {}: {} bytes in bursts of {} every {}, {} .. {}",
               masters_[size_t(train.master)], train.bytes, train.tenure, train.period, train.start,
               train.end);
  trains_.push_back(train);
  if (train.period != SC_ZERO_TIME) {
    const double bursts = (train.end - train.start) / train.period;
    const sc_time busy = train.tenure * std::max(1.0, bursts);
    stats_.busy += busy;
    stats_.master_busy[train.master] += busy;
    sc_time& longest = stats_.longest_tenure[train.master];
    longest = std::max(longest, std::min(train.tenure, train.end - train.start));
  }
  for (auto* l : listeners_) l->master_traffic(train);
  if (probe_)
    probe_->pci_train(train.master, train.start, train.end, train.period, train.tenure,
                      train.bytes);
}

void PciBus::prune(sc_time now) {
  trains_.erase(std::remove_if(trains_.begin(), trains_.end(),
                               [&](const BurstTrain& t) { return t.end <= now; }),
                trains_.end());
}

sc_time PciBus::host_grant_time(sc_time t) const {
  // The host bridge asserts REQ# at t; the master in its tenure keeps the bus
  // until its burst ends or, once its latency timer has expired, one clock after
  // GNT# is taken away (PCI 2.1 3.5.4). Then arbitration hands GNT# over.
  // Repeat until no master holds the bus at the grant time: a grant that lands
  // in another master's burst waits for that one too. At each hand-over the
  // arbiter chooses between the host and the master that still has data.
  // A burst cut short by the latency timer resumes after the host's cycle, so
  // each burst is waited for at most once.
  sc_time grant = t;
  std::vector<std::pair<const BurstTrain*, uint64_t>> waited;
  // Trains that lost a hand-over to the host: their next burst queues behind the host's
  // cycle, so even back-to-back bursts (a saturated bus) are waited for only once.
  std::vector<const BurstTrain*> yielded;
  for (bool moved = true; moved;) {
    moved = false;
    const sc_time idle = free_at(grant);  // another CPU's transaction still on the bus
    if (idle > grant) grant = idle, moved = true;
    for (const auto& tr : trains_) {
      if (!tr.covers(grant)) continue;
      if (std::find(yielded.begin(), yielded.end(), &tr) != yielded.end()) continue;
      const sc_time natural = tr.burst_end_at(grant);
      if (natural <= grant) continue;
      const uint64_t k = to_ps(grant - tr.start) / std::max<uint64_t>(1, to_ps(tr.period));
      if (std::find(waited.begin(), waited.end(), std::make_pair(&tr, k)) != waited.end()) continue;
      waited.push_back({&tr, k});
      sc_time release = natural;
      if (latency_timer_enabled_) {
        const sc_time frame = tr.start + ps(k * to_ps(tr.period));
        const LatencyTimer lt = timer_of(tr.master);
        release = tr.mwi_line_clocks > 0
                      ? lt.tenure_end_mwi(frame, natural, grant, tr.mwi_line_clocks)
                      : lt.tenure_end(frame, natural, grant);
      }
      PciArbiter arb = arbiter_;  // a what-if: the bus's own arbiter state is not consumed
      std::vector<bool> req(masters_.size(), false);
      req[0] = true;
      req[size_t(tr.master)] = release < tr.end;
      sc_time next = release + clk_ * 2.0;  // 2 clocks arbitration latency
      if (arb.grant(req) != 0)
        next = std::max(next, tr.burst_end_at(next));  // the master goes again
      else
        yielded.push_back(&tr);
      grant = next;
      moved = true;
    }
  }
  return grant;
}

sc_time PciBus::free_at(sc_time t) const {
  for (bool moved = true; moved;) {
    moved = false;
    for (const auto& h : holds_)
      if (t >= h.first && t < h.second) t = h.second, moved = true;
  }
  return t;
}

void PciBus::hold(sc_time from, sc_time to) {
  const sc_time now = sc_core::sc_time_stamp();
  holds_.erase(
      std::remove_if(holds_.begin(), holds_.end(), [&](const auto& h) { return h.second <= now; }),
      holds_.end());
  if (to <= from) return;
  holds_.emplace_back(from, to);
  if (probe_) probe_->pci_host_hold(from, to);
  stats_.host_busy += to - from;
  stats_.longest_transaction = std::max(stats_.longest_transaction, to - from);
  // A master whose first REQ# comes while the bus is held gets GNT# when it ends.
  std::vector<std::pair<BurstTrain, BurstTrain>> moved;
  for (auto& tr : trains_) {
    if (tr.start < from || tr.start >= to) continue;
    const BurstTrain before = tr;
    const sc_time shift = to - tr.start;
    tr.end += shift;
    if (tr.run_end > SC_ZERO_TIME) tr.run_end += shift;  // the master may revise it
    tr.start = to;
    moved.emplace_back(before, tr);
  }
  for (auto& [before, after] : moved) {
    const size_t m = size_t(after.master);
    LATSIM_DEBUG(pci, name(), "GNT# to {} deferred by a host cycle: {} -> {}", masters_[m],
                 before.start, after.start);
    if (m < on_defer_.size() && on_defer_[m]) on_defer_[m](before, after);
    for (auto& tr : trains_)
      if (tr.master == after.master && tr.start == after.start) tr.run_end = after.run_end;
    for (auto* l : listeners_) l->master_traffic_deferred(before, after);
    if (probe_) probe_->pci_train_deferred(after.master, before.start, after.start, after.end);
  }
}

void PciBus::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const sc_time frame = sc_core::sc_time_stamp() + delay;
  auto hit = map_.decode(p.get_address());
  if (!hit) {
    last_cycle_ = {};
    // Master abort: reads float high, as on a real bus; write data is dropped.
    if (p.is_read()) std::fill_n(p.get_data_ptr(), p.get_data_length(), 0xff);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    delay += clk_ * 6.0;  // subtractive decode timeout
    hold(frame, sc_core::sc_time_stamp() + delay);
    return;
  }
  stats_.cpu_transactions++;
  last_cycle_ = {};  // a delayed transaction's wait is its Retries, charged by the master
  if (delayed_ranges_.count(hit->range->name) && !(p.is_write() && p.get_address() < kIoSpace) &&
      delayed_transaction(p, *hit, frame, delay))
    return;
  // Address phase, DEVSEL/initial wait states, one data phase, turnaround.
  delay += clk_ * double(3 + hit->range->initial_latency_clocks);
  p.set_address(hit->offset);
  const sc_time before = delay;
  target_socket[hit->range->port]->b_transport(p, delay);
  last_cycle_ = {take_stall_class(p), delay - before};
  // The bus is the transaction's until the target ends it: TRDY#, wait states
  // without bound (pre-2.1 target) or STOP# with Retry.
  hold(frame, sc_core::sc_time_stamp() + delay);
  if (last_cycle_.cls != StallClass::Pci) {
    const sc_time now = sc_core::sc_time_stamp();
    class_holds_.erase(std::remove_if(class_holds_.begin(), class_holds_.end(),
                                      [&](const ClassHold& h) { return h.to <= now; }),
                       class_holds_.end());
    class_holds_.push_back({frame, now + delay, last_cycle_.cls});
  }
  if (is_retry(p)) stats_.retries++;
}

sc_time PciBus::held_by(StallClass c, sc_time from, sc_time to) const {
  sc_time sum;
  for (const auto& h : class_holds_) {
    if (h.cls != c) continue;
    const sc_time a = std::max(from, h.from), b = std::min(to, h.to);
    if (b > a) sum += b - a;
  }
  return sum;
}

void PciBus::set_delayed_transactions(const std::string& range_name, bool on) {
  if (on)
    delayed_ranges_.insert(range_name);
  else
    delayed_ranges_.erase(range_name);
}

bool PciBus::delayed_transaction(tlm::tlm_generic_payload& p, const AddressMap::Hit& hit,
                                 sc_time frame, sc_time& delay) {
  const int port = hit.range->port;
  // Address phase, DEVSEL, then either one data phase or STOP#, and turnaround.
  const sc_time attempt = clk_ * double(3 + hit.range->initial_latency_clocks);
  const unsigned len = std::min(8u, p.get_data_length());
  auto retry = [&] {
    delay += attempt;
    signal_retry(p);
    hold(frame, sc_core::sc_time_stamp() + delay);
    stats_.retries++;
    return true;
  };
  auto it = delayed_.find(port);
  if (it != delayed_.end() && frame > it->second.discard_at) {
    stats_.delayed_discarded++;  // the master never came back for it
    delayed_.erase(it);
    it = delayed_.end();
  }
  if (it != delayed_.end()) {
    const Delayed& d = it->second;
    const bool same = d.offset == hit.offset && d.cmd == p.get_command() && d.len == len &&
                      (p.is_read() || std::equal(d.data, d.data + len, p.get_data_ptr()));
    if (!same || frame < d.ready) return retry();  // busy with this or another request
    if (p.is_read()) std::copy(d.data, d.data + len, p.get_data_ptr());
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    delay += attempt;
    hold(frame, sc_core::sc_time_stamp() + delay);
    stats_.delayed_completed++;
    delayed_.erase(it);
    return true;
  }
  // A new request: the target runs it on its own side (an ISA cycle, say).
  Delayed d;
  d.offset = hit.offset;
  d.cmd = p.get_command();
  d.len = len;
  std::copy(p.get_data_ptr(), p.get_data_ptr() + len, d.data);
  tlm::tlm_generic_payload q;
  q.set_command(d.cmd);
  q.set_address(hit.offset);
  q.set_data_ptr(d.data);
  q.set_data_length(len);
  q.set_streaming_width(len);
  q.set_byte_enable_ptr(nullptr);
  q.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time own = SC_ZERO_TIME;
  target_socket[port]->b_transport(q, own);
  // Fast enough for the 16-clock rule: an ordinary transaction after all.
  if (clk_ * double(hit.range->initial_latency_clocks) + own <=
      clk_ * double(kInitialLatencyLimitClocks)) {
    if (p.is_read()) std::copy(d.data, d.data + len, p.get_data_ptr());
    p.set_response_status(q.get_response_status());
    delay += attempt + own;
    hold(frame, sc_core::sc_time_stamp() + delay);
    return true;
  }
  d.ready = frame + attempt + own;  // latched at the address phase, done on the far side
  d.discard_at = d.ready + clk_ * double(discard_clocks_);
  delayed_[port] = d;
  stats_.delayed_latched++;
  return retry();
}

void PciBus::record_cpu_wait(sc_time wait) {
  stats_.cpu_waits++;
  stats_.cpu_wait_total += wait;
  stats_.longest_cpu_wait = std::max(stats_.longest_cpu_wait, wait);
  const auto& edges = cpu_wait_buckets_us();
  const double w = to_us(wait);
  size_t b = 0;
  while (b < edges.size() && w >= edges[b]) ++b;
  stats_.cpu_wait_hist[b]++;
}

double PciBus::utilization(sc_time over) const {
  if (over == SC_ZERO_TIME) return 0.0;
  return std::min(1.0, stats_.busy / over);
}

}  // namespace latsim::pci
