#pragma once
// An X server (a user process) answering pointer motion: every event it redraws
// with the card's 2D engine through the Permedia 2's input FIFO (XFree86 glint/XAA
// code paths), under one of the three FIFO policies of glint_fifo.h.
//   drag      - opaque window move: one screen-to-screen copy of the whole window,
//               then the two uncovered strips filled and their contents redrawn
//               by colour expansion (text and icons: BitMaskPattern dwords);
//   scroll    - the window's contents copied up by one step, the new strip
//               filled and redrawn;
//   put_image - an image of the window's size written as pixel data.
#include <cstdint>
#include <memory>
#include <string>
#include "workloads/glint_fifo.h"
#include "workloads/program.h"

namespace latsim::workloads {

enum class X11Op { Drag, Scroll, PutImage };
const char* op_name(X11Op op);

struct X11Params {
  FifoPolicy driver = FifoPolicy::Cached;  // XFree86's default on a Permedia 2
  X11Op op = X11Op::Drag;
  int rate_hz = 100;               // motion events: psmouse's default sample rate is 100/s
  int width = 1000, height = 700;  // the window, pixels
  int step_px = 8;                 // how far it moves (or scrolls) per event
  uint64_t mmio_base = 0;          // the card's control aperture (its PCI BAR)
  unsigned fifo_size = 256;        // glint_driver.c: FIFOSize = 256 for Permedia 2
  // Assumptions: X's own work per motion event (dispatch, window manager round
  // trip, region arithmetic) ~150 us on a PII-333; a few instructions per register
  // store; a compare-and-branch between status reads.
  uint64_t event_cycles = 50000;
  uint64_t write_cycles = 6;
  uint64_t spin_cycles = 4;
  int nice = 0;
};

struct X11Stats {
  uint64_t events = 0;   // motion events handled
  uint64_t skipped = 0;  // events merged because the server was late (motion compression)
};

class X11 : public Program {
 public:
  X11(std::string name, const X11Params& p) : name_(std::move(name)), p_(p) {}
  const std::string& name() const override { return name_; }
  void start(Kernel& k) override;
  const X11Params& params() const { return p_; }
  const X11Stats& stats() const { return s_; }
  const FifoStats& fifo_stats() const;
  nlohmann::json metrics(Kernel& k, double sim_s) const override;

 private:
  void run(Kernel& k);
  void event();
  // XAA entry points of the glint driver, as FIFO traffic.
  void copy(int w, int h);
  void fill(int w, int h);
  void bitmap(int w, int h);  // colour expansion of w x h pixels (WriteBitmap)
  void image(int w, int h);   // pixel data, one dword per 32-bpp pixel (WritePixmap)
  void rect(int w, int h, uint32_t render_bits);

  std::string name_;
  X11Params p_;
  X11Stats s_;
  std::unique_ptr<GlintFifo> fifo_;
};

}  // namespace latsim::workloads
