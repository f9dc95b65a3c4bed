#include "models/video/permedia2.h"
#include <algorithm>
#include <cstring>
#include "common/log.h"
#include "models/common/knobs.h"
#include "models/pci/stall_class.h"
#include "models/pci/target_termination.h"

namespace latsim::video {

params::Table<Permedia2Params> permedia2_keys() {
  using namespace params;
  using P = Permedia2Params;
  return {
      bind(with_source(choice("card", {"none", "permedia2"},
                              "graphics card with a command FIFO on PCI (none: not fitted)"),
                       "seed 000's reports name no card on the reference machine"),
           &P::card),
      bind(with_source(integer("fifo_entries", 1, 65536, "entries",
                               "input FIFO depth (InFIFOSpace when empty)"),
                       "XFree86 glint_driver.c: FIFOSize = 256 for PERMEDIA2"),
           &P::fifo_entries),
      knobs::bind_enum(
          with_source(of_type(ValueType::Enum, "pci",
                              "a store into the full FIFO: 2.0 holds the bus with wait states "
                              "until an entry drains, 2.1 ends it with Retry at 16 clocks "
                              "(FIFODiscon)"),
                      "FIFODiscon resets to 0: wait states (pm2fb sets it only with "
                      "CONFIG_FB_PM2_FIFO_DISCONNECT)"),
          &P::full_write, {{FullFifoWrite::Pci20Hold, "2.0"}, {FullFifoWrite::Pci21Retry, "2.1"}}),
      bind(with_source(number("register_load_ns", 0, 100000, "ns",
                              "core time to take one register load from the FIFO"),
                       "assumption: one clock of an ~83 MHz core"),
           &P::register_load_ns),
      bind(with_source(number("render_setup_ns", 0, 100000, "ns", "core time to start one Render"),
                       "assumption: ~10 core clocks"),
           &P::render_setup_ns),
      bind(with_source(number("fill_ns_per_pixel", 0, 10000, "ns",
                              "core time per filled pixel of a Render"),
                       "assumption: one filled fragment per core clock"),
           &P::fill_ns_per_pixel),
      bind(with_source(number("copy_ns_per_pixel", 0, 10000, "ns",
                              "core time per pixel of a screen-to-screen copy (source read + "
                              "write)"),
                       "assumption: 8 bytes a pixel over SGRAM that display refresh shares"),
           &P::copy_ns_per_pixel),
  };
}

Permedia2::Permedia2(sc_core::sc_module_name name, const Permedia2Params& p)
    : sc_module(name), socket("socket"), p_(p), mode_(p.full_write) {
  socket.register_b_transport(this, &Permedia2::b_transport);
  SC_HAS_PROCESS(Permedia2);
  SC_METHOD(drain);
  sensitive << head_ev_;
  dont_initialize();
}

pci::PciIdentity Permedia2::pci_identity() {
  pci::PciIdentity id;  // 3Dlabs Permedia 2
  id.vendor_id = 0x3d3d;
  id.device_id = 0x0007;
  id.revision_id = 0x01;
  id.class_code = 0x030000;  // VGA-compatible display controller
  id.command_bits = pci::PciConfig::MEMORY_SPACE | pci::PciConfig::BUS_MASTER;
  id.interrupt_pin = 1;
  id.bars[0] = {128u << 10, false};  // control registers
  return id;
}

void Permedia2::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  if (p.get_data_length() != 4 || p.get_byte_enable_ptr()) {
    p.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);  // registers are dword-accessed
    return;
  }
  regs_.transport(p, delay);  // at the data phase, unless held
}

uint32_t Permedia2::read_in_fifo_space(const RegIo& io) {
  stats_.status_reads++;
  return free_entries(io.at);
}

void Permedia2::write(uint64_t off, uint32_t v, sc_time at, sc_time& delay,
                      tlm::tlm_generic_payload& p) {
  retire(at);
  if (taken_at_.size() < p_.fifo_entries) return accept(off, v, at);
  stats_.full_writes++;
  LATSIM_DEBUG(video, name(), "write to a full FIFO ({} entries): the head drains at {}",
               taken_at_.size(), taken_at_.front());
  // Whatever the write now waits for (held or Retried) is the FIFO draining.
  pci::declare_stall_class(p, pci::StallClass::VideoFifo);
  const sc_time free_at = taken_at_.front();  // the core takes the head entry then
  if (mode_ == FullFifoWrite::Pci21Retry) {
    // PCI 2.1: TRDY# within 16 clocks of FRAME# (the bus charged 3 + decode of them
    // as address, data phase and turnaround), else STOP# with Retry at the limit.
    const sc_time limit =
        at + p_.pci_clock * double(pci::kInitialLatencyLimitClocks - p_.decode_clocks);
    if (free_at > limit) {
      delay += limit - at;
      stats_.retries++;
      pci::signal_retry(p);
      return;
    }
  }
  // Wait states until an entry drains: the transaction, and so the bus, is held.
  delay += free_at - at;
  stats_.hold_total += free_at - at;
  stats_.longest_hold = std::max(stats_.longest_hold, free_at - at);
  retire(free_at);
  accept(off, v, free_at);
}

void Permedia2::accept(uint64_t off, uint32_t v, sc_time at) {
  stats_.fifo_writes++;
  const sc_time take = std::max(at, core_free_);
  core_free_ = take + cost(off, v);
  if (take > at) {  // the core is busy: the entry waits in the FIFO
    taken_at_.push_back(take);
    set_level(at, unsigned(taken_at_.size()));
    schedule();
  }
}

sc_time Permedia2::cost(uint64_t off, uint32_t v) {
  // Register state is read in FIFO order, so what was written before a Render
  // is what the core sees when it runs it.
  if (off == kRectangleSize) rect_size_ = v;
  if (off == kConfig) config_ = v;
  if (off != kRender) return p_.register_load();
  stats_.renders++;
  if ((v & kRenderPrimitiveMask) != kRenderRectangle) return p_.render_setup();
  const uint64_t px = uint64_t(rect_size_ & 0xffff) * (rect_size_ >> 16);
  stats_.pixels += px;
  const sc_time per = (config_ & kConfigReadSource) ? p_.copy_per_pixel() : p_.fill_per_pixel();
  return p_.render_setup() + per * double(px);
}

unsigned Permedia2::free_entries(sc_time at) {
  retire(at);
  return p_.fifo_entries - unsigned(taken_at_.size());
}

void Permedia2::retire(sc_time t) {
  while (!taken_at_.empty() && taken_at_.front() <= t) {
    const sc_time when = taken_at_.front();
    taken_at_.pop_front();
    set_level(when, unsigned(taken_at_.size()));
  }
}

void Permedia2::set_level(sc_time t, unsigned n) {
  t = std::max(t, level_since_);  // accesses annotated ahead keep the record monotonic
  const sc_time dt = t - level_since_;
  stats_.level_integral += dt * double(level_);
  if (level_ == p_.fifo_entries) stats_.time_full += dt;
  level_since_ = t;
  if (n == level_) return;
  level_ = n;
  stats_.max_level = std::max(stats_.max_level, n);
  if (observer_) observer_(t, n);
}

const Permedia2Stats& Permedia2::stats() {
  retire(sc_core::sc_time_stamp());
  set_level(sc_core::sc_time_stamp(), level_);  // level x time up to now
  return stats_;
}

void Permedia2::drain() {
  retire(sc_core::sc_time_stamp());
  schedule();
}

void Permedia2::schedule() {
  if (taken_at_.empty()) return;
  const sc_time now = sc_core::sc_time_stamp();
  const sc_time head = taken_at_.front();
  head_ev_.notify(head > now ? head - now : SC_ZERO_TIME);
}

}  // namespace latsim::video
