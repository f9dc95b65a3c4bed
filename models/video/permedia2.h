#pragma once
// 3Dlabs Permedia 2-class graphics controller as a 32-bit PCI memory target:
// control registers (InFIFOSpace, FIFODiscon) and the graphics core's input FIFO,
// which every write to a core register (0x8000 up) goes through. The core takes
// one entry at a time and spends a time on it that depends on what it is: a
// register load, or a Render whose cost grows with the rectangle's pixels. The
// FIFO drains event-driven: one event when the core takes the next entry.
// A write into a full FIFO either holds the bus with wait states until the core
// takes an entry (targets before PCI 2.1) or is ended with Retry at the 16-clock
// initial-latency limit (PCI 2.1; the Permedia 2's FIFODiscon register).
#include <tlm_utils/simple_target_socket.h>
#include <deque>
#include <functional>
#include <string>
#include <systemc>
#include <tlm>
#include "common/params.h"
#include "models/common/time.h"
#include "models/pci/pci_config.h"

namespace latsim::video {

enum class FullFifoWrite { Pci20Hold, Pci21Retry };

// The platform.video.* knobs (permedia2_keys) and the card's fixed facts. Core time
// per FIFO entry, by kind: all figures are assumptions (no Permedia 2 timing datasheet
// at hand): about one clock of an ~83 MHz core per register load and per filled pixel.
// A 32-bpp screen-to-screen copy moves 8 bytes per pixel over a ~800 MB/s SGRAM bus
// that display refresh shares; 40 ns/pixel assumes ~35 % of the rest. O12 (25-30 ms
// for most of 1024x768) is the check, not the source.
struct Permedia2Params {
  std::string card = "none";    // the board's graphics card: none | permedia2 (this model)
  unsigned fifo_entries = 256;  // glint_driver.c FIFOSize; pm2fb waits for up to 53 free
  FullFifoWrite full_write = FullFifoWrite::Pci20Hold;  // reset value of FIFODiscon
  double register_load_ns = 12;
  double render_setup_ns = 120;  // rasteriser start-up per Render
  double fill_ns_per_pixel = 12;
  double copy_ns_per_pixel = 40;              // source read + write
  sc_time pci_clock = sc_time(30003, SC_PS);  // 33.33 MHz
  int decode_clocks = 2;  // DEVSEL + initial wait states the bus charges (its map entry)

  sc_time register_load() const { return sc_time(register_load_ns, SC_NS); }
  sc_time render_setup() const { return sc_time(render_setup_ns, SC_NS); }
  sc_time fill_per_pixel() const { return sc_time(fill_ns_per_pixel, SC_NS); }
  sc_time copy_per_pixel() const { return sc_time(copy_ns_per_pixel, SC_NS); }
};
params::Table<Permedia2Params> permedia2_keys();

struct Permedia2Stats {
  uint64_t fifo_writes = 0;   // entries the FIFO accepted
  uint64_t renders = 0;       // Render commands
  uint64_t pixels = 0;        // pixels those Renders touch
  uint64_t status_reads = 0;  // InFIFOSpace reads
  uint64_t full_writes = 0;   // writes that found no free entry
  uint64_t retries = 0;       // of those, ended with Retry
  sc_time hold_total;         // wait states inserted into writes (bus held)
  sc_time longest_hold;
  unsigned max_level = 0;
  sc_time time_full;       // with no free entry
  sc_time level_integral;  // level x time: mean level = level_integral / elapsed
};

class Permedia2 : public sc_core::sc_module {
 public:
  // Control-space offsets (Linux pm2fb.h names).
  static constexpr uint64_t kResetStatus = 0x0000;
  static constexpr uint64_t kInFifoSpace = 0x0018;
  static constexpr uint64_t kFifoDiscon = 0x0068;
  static constexpr uint64_t kCoreBase = 0x8000, kCoreEnd = 0xa000;  // FIFO'd registers
  static constexpr uint64_t kRender = 0x8038;
  static constexpr uint64_t kRectangleSize = 0x80d8;  // height << 16 | width
  static constexpr uint64_t kConfig = 0x8d90;
  static constexpr uint32_t kRenderPrimitiveMask = 3u << 6, kRenderRectangle = 3u << 6;
  static constexpr uint32_t kConfigReadSource = 1u << 0;  // copy: the source is read

  tlm_utils::simple_target_socket<Permedia2> socket;

  Permedia2(sc_core::sc_module_name name, const Permedia2Params& p);

  unsigned level() const { return level_; }  // entries waiting for the core
  unsigned free_entries(sc_time at);         // what InFIFOSpace reads at `at`
  FullFifoWrite full_write() const { return mode_; }
  sc_time core_busy_until() const { return core_free_; }
  // Told every level change (time, level): the FIFO level as a timeline counter.
  void on_level(std::function<void(sc_time, unsigned)> f) { observer_ = std::move(f); }
  const Permedia2Stats& stats();  // level statistics brought up to now
  const Permedia2Params& params() const { return p_; }
  // Its own DMA is not modelled, so nothing holds it to its Latency Timer.
  pci::PciConfig& pci_config() { return pci_config_; }

 private:
  using Reg = Register<Permedia2>;
  static pci::PciIdentity pci_identity();

  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  uint32_t read_in_fifo_space(const RegIo& io);
  uint32_t read_fifo_discon(const RegIo&) { return mode_ == FullFifoWrite::Pci21Retry; }
  void write_fifo_discon(uint32_t v, const RegIo&) {
    mode_ = (v & 1) ? FullFifoWrite::Pci21Retry : FullFifoWrite::Pci20Hold;
  }
  void write_core(uint32_t v, const RegIo& io) {
    write(kCoreBase + 4 * io.index, v, io.at, *io.delay, *io.payload);
  }
  void write(uint64_t off, uint32_t v, sc_time at, sc_time& delay, tlm::tlm_generic_payload& p);
  void accept(uint64_t off, uint32_t v, sc_time at);  // into the FIFO (or straight to the core)
  sc_time cost(uint64_t off, uint32_t v);
  void retire(sc_time t);  // entries the core has taken by t leave the FIFO
  void set_level(sc_time t, unsigned n);
  void drain();  // method: the core takes the head entry
  void schedule();

  Permedia2Params p_;
  FullFifoWrite mode_;
  std::deque<sc_time> taken_at_;  // when the core takes each waiting entry
  sc_time core_free_;             // the core is done with the last accepted entry
  uint32_t rect_size_ = 0, config_ = 0;
  unsigned level_ = 0;
  sc_time level_since_;
  sc_core::sc_event head_ev_;
  std::function<void(sc_time, unsigned)> observer_;
  Permedia2Stats stats_;
  pci::PciConfig pci_config_{pci_identity()};
  // Control registers answer at once; every write to a core register goes through the FIFO.
  RegisterBank<Permedia2> regs_{this};
  Reg reset_status_ = Reg(regs_, "ResetStatus", {kResetStatus, 4}, RegAccess::RO);  // never reset
  Reg in_fifo_space_ = Reg(regs_, "InFIFOSpace", {kInFifoSpace, 4}, RegAccess::RO, 0,
                           &Permedia2::read_in_fifo_space);
  Reg fifo_discon_ = Reg(regs_, "FIFODiscon", {kFifoDiscon, 4}, RegAccess::RW, 0,
                         &Permedia2::read_fifo_discon, &Permedia2::write_fifo_discon);
  Reg core_ = Reg(regs_, "core registers", {kCoreBase, 4, (kCoreEnd - kCoreBase) / 4},
                  RegAccess::WO, 0, nullptr, &Permedia2::write_core);  // reads not modelled
};

}  // namespace latsim::video
