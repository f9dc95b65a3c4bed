#include "workloads/x11.h"
#include <algorithm>
#include <cmath>
#include "workloads/registry.h"

namespace latsim::workloads {
namespace {
const FifoStats kNoStats;

using params::integer;
using P = X11Params;

params::Table<Config> x11_keys() {
  return {
      name_key(),
      param(params::bind_enum(params::choice("driver", {"rude", "poll", "cached"},
                                             "FIFO policy: store without looking, read "
                                             "InFIFOSpace before every store, or keep a cached "
                                             "free count"),
                              &P::driver,
                              {{FifoPolicy::Rude, "rude"},
                               {FifoPolicy::Poll, "poll"},
                               {FifoPolicy::Cached, "cached"}})),
      param(params::bind_enum(
          params::choice("op", {"drag", "scroll", "put_image"}, "what each event redraws"), &P::op,
          {{X11Op::Drag, "drag"}, {X11Op::Scroll, "scroll"}, {X11Op::PutImage, "put_image"}})),
      param(params::bind(integer("rate_hz", 1, 1000, "Hz", "pointer events per second"),
                         &P::rate_hz)),
      param(params::bind(integer("width", 1, 2048, "pixels", "window width"), &P::width)),
      param(params::bind(integer("height", 1, 2048, "pixels", "window height"), &P::height)),
      param(params::bind(integer("step_px", 1, 256, "pixels", "move or scroll per event"),
                         &P::step_px)),
  };
}

std::vector<Problem> needs_video(const Config&, const Board& b) {
  if (b.has_video) return {};
  return {{"",
           "x11 draws through a video card, and platform.video.card is none (accepted: "
           "permedia2, or a preset that has one, such as pii-333-permedia2)"}};
}

const Registration kX11{
    {"x11",
     "X server redrawing with the video card's 2D engine per pointer event (needs "
     "platform.video.card)",
     x11_keys(), [] { return P{}; },
     [](const Config& c, const Board& b) {
       P p = c.as<P>();
       p.mmio_base = b.video_mmio_base;  // the BAR the X server maps
       return std::make_unique<X11>(c.name, p);
     },
     needs_video}};

}  // namespace

nlohmann::json X11::metrics(Kernel&, double) const {
  const auto& f = fifo_stats();
  return {{"driver", policy_name(p_.driver)},
          {"events", s_.events},
          {"events_merged", s_.skipped},
          {"fifo_writes", f.writes},
          {"status_reads", f.status_reads},
          {"status_reads_spinning", f.spin_reads},
          // reads that decided a store (not the wait loop's repeats)
          {"status_checks_per_write",
           f.writes ? round3(double(f.status_reads - f.spin_reads) / double(f.writes)) : 0.0}};
}

const char* op_name(X11Op op) {
  switch (op) {
    case X11Op::Drag:
      return "drag";
    case X11Op::Scroll:
      return "scroll";
    case X11Op::PutImage:
      return "put_image";
  }
  return "?";
}

const FifoStats& X11::fifo_stats() const { return fifo_ ? fifo_->stats() : kNoStats; }

void X11::start(Kernel& k) {
  GlintFifo::Ops ops;
  ops.readl = [&k](uint64_t a) { return k.readl(a); };
  ops.writel = [&k](uint32_t v, uint64_t a) { k.writel(v, a); };
  ops.run = [&k](uint64_t cycles) { k.user_exec(cycles, 0); };
  fifo_ = std::make_unique<GlintFifo>(p_.driver, p_.mmio_base, p_.fifo_size, p_.write_cycles,
                                      p_.spin_cycles, std::move(ops));
  k.create_task(
      "X", [this, &k] { run(k); }, Policy::Normal, p_.nice);
}

void X11::run(Kernel& k) {
  // Motion events arrive on the tick grid (the PS/2 IRQ's wakeup is not modelled);
  // an event the server was too late for is merged into the next (motion compression).
  const uint64_t step = std::max<uint64_t>(
      1, uint64_t(std::llround(1.0 / p_.rate_hz / k.tick_period().to_seconds())));
  const int cpu = k.smp_processor_id();
  uint64_t tick = k.local_ticks(cpu) + step;
  for (;;) {
    k.fn("sys_select", "syscall_call", 400, 4);
    k.sleep_until_tick(cpu, tick, "do_select");
    k.fn("sys_read", "syscall_call", 300, 3);  // the event from /dev/psaux
    event();
    k.user_exec(p_.event_cycles, 20);
    s_.events++;
    tick += step;
    const uint64_t now_tick = k.local_ticks(cpu);
    while (tick <= now_tick) tick += step, s_.skipped++;
  }
}

void X11::event() {
  const int w = p_.width, h = p_.height, d = p_.step_px;
  switch (p_.op) {
    case X11Op::Drag:
      copy(w, h);                  // the window to its new place
      fill(d, h), fill(w, d);      // the uncovered L: background first ...
      bitmap(d, h), bitmap(w, d);  // ... then what the windows below draw there
      break;
    case X11Op::Scroll:
      copy(w, std::max(h - d, 1));
      fill(w, d);
      bitmap(w, d);
      break;
    case X11Op::PutImage:
      image(w, h);
      break;
  }
}

void X11::rect(int w, int h, uint32_t render_bits) {
  // Permedia2LoadCoord + Render.
  fifo_->write(uint32_t(h) << 16 | uint32_t(w), pm2::RectangleSize);
  fifo_->write(0, pm2::RectangleOrigin);
  fifo_->write(pm2::PrimitiveRectangle | render_bits, pm2::Render);
}

void X11::copy(int w, int h) {
  // Permedia2SetupForScreenToScreenCopy (4) + SubsequentScreenToScreenCopy (6).
  fifo_->wait(4);
  for (int i = 0; i < 4; ++i) fifo_->write(0, pm2::LogicalOpMode);
  fifo_->wait(6);
  fifo_->write(pm2::ConfigReadSource, pm2::Config);
  fifo_->write(0, pm2::PackedDataLimits);
  fifo_->write(0, pm2::LogicalOpMode);  // FBSourceDelta
  rect(w, h, 0);
}

void X11::fill(int w, int h) {
  // Permedia2SetupForFillRectSolid (6) + SubsequentFillRectSolid (3).
  fifo_->wait(6);
  fifo_->write(0, pm2::Config);
  for (int i = 0; i < 4; ++i) fifo_->write(0, pm2::LogicalOpMode);
  fifo_->write(0, pm2::FBBlockColor);
  fifo_->wait(3);
  rect(w, h, 0);
}

void X11::bitmap(int w, int h) {
  // Permedia2WriteBitmap: clip (3), setup (11 with the Render), then per scanline
  // a tag word and ceil(w/32) mask dwords.
  const int dwords = (w + 31) / 32;
  fifo_->wait(3);
  for (int i = 0; i < 3; ++i) fifo_->write(0, pm2::LogicalOpMode);
  fifo_->wait(11);
  fifo_->write(0, pm2::Config);
  for (int i = 0; i < 7; ++i) fifo_->write(0, pm2::LogicalOpMode);
  rect(w, h, 0);
  for (int row = 0; row < h; ++row) {
    fifo_->wait(unsigned(dwords) + 1);
    for (int i = 0; i <= dwords; ++i) fifo_->write(~0u, pm2::BitMaskPattern);
  }
}

void X11::image(int w, int h) {
  // Permedia2WritePixmap32bpp-like: a rectangle, then the pixels in chunks of at
  // most FIFOSize - 1 dwords, each behind its tag word.
  fifo_->wait(4);
  fifo_->write(0, pm2::Config);
  rect(w, h, 0);
  uint64_t left = uint64_t(w) * uint64_t(h);
  while (left) {
    const unsigned n = unsigned(std::min<uint64_t>(left, p_.fifo_size - 1));
    fifo_->wait(n + 1);
    for (unsigned i = 0; i <= n; ++i) fifo_->write(0, pm2::TextureData);
    left -= n;
  }
}

}  // namespace latsim::workloads
