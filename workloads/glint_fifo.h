#pragma once
// The X server's path to a Permedia 2's input FIFO (XFree86 glint driver:
// GLINT_WAIT(n) before a group of n GLINT_WRITE_REG stores, from user mode through
// the mmap'ed control aperture). Three policies (docs/MODEL.md, "Video card"):
//   rude   - store without looking: a store into a full FIFO is the card's problem;
//   poll   - read InFIFOSpace before every store, spin while it reads 0;
//   cached - keep the last free count, count it down, re-read only when it runs
//            out (GLINT_WAIT as XFree86 wrote it, clamped to FIFOSize).
// Between accesses the CPU runs the driver's own instructions, where interrupts
// are taken; nothing can be taken inside a store the bus holds.
#include <cstdint>
#include <functional>
#include <string>

namespace latsim::workloads {

enum class FifoPolicy { Rude, Poll, Cached };
const char* policy_name(FifoPolicy p);

// Permedia 2 register offsets in the control aperture (glint_regs.h tags: 0x8000 +
// major << 7 + minor << 3 for the FIFO'd core registers).
namespace pm2 {
constexpr uint64_t InFIFOSpace = 0x0018;
constexpr uint64_t Render = 0x8038;            // tag 0x00,0x07
constexpr uint64_t BitMaskPattern = 0x8068;    // tag 0x00,0x0D: colour-expansion data
constexpr uint64_t RectangleOrigin = 0x80d0;   // tag 0x01,0x0A
constexpr uint64_t RectangleSize = 0x80d8;     // tag 0x01,0x0B
constexpr uint64_t PackedDataLimits = 0x8150;  // tag 0x02,0x0A
constexpr uint64_t LogicalOpMode = 0x8828;     // tag 0x10,0x05: mode loads of a setup
constexpr uint64_t FBBlockColor = 0x8ac8;
constexpr uint64_t TextureData = 0x8e80;  // put-image pixel data
constexpr uint64_t Config = 0x8d90;       // FBReadSourceEnable: a copy reads its source
constexpr uint32_t ConfigReadSource = 1u << 0;
constexpr uint32_t PrimitiveRectangle = 3u << 6;
}  // namespace pm2

struct FifoStats {
  uint64_t writes = 0;        // stores into the FIFO
  uint64_t status_reads = 0;  // InFIFOSpace reads
  uint64_t spin_reads = 0;    // of those, reads that found too little room (wait loop)
};

class GlintFifo {
 public:
  struct Ops {
    std::function<uint32_t(uint64_t)> readl;         // uncached load
    std::function<void(uint32_t, uint64_t)> writel;  // uncached store
    std::function<void(uint64_t)> run;               // N cycles of driver code (interruptible)
  };
  // `fifo_size`: the driver's FIFOSize (256 for a Permedia 2 in glint_driver.c).
  GlintFifo(FifoPolicy policy, uint64_t base, unsigned fifo_size, uint64_t write_cycles,
            uint64_t spin_cycles, Ops ops);

  void wait(unsigned n);                     // GLINT_WAIT(n)
  void write(uint32_t value, uint64_t reg);  // GLINT_WRITE_REG(value, reg)
  FifoPolicy policy() const { return policy_; }
  const FifoStats& stats() const { return s_; }

 private:
  unsigned wait_for(unsigned n);  // read InFIFOSpace until it shows n; returns the count read

  FifoPolicy policy_;
  uint64_t base_;
  unsigned fifo_size_;
  uint64_t write_cycles_, spin_cycles_;
  Ops ops_;
  unsigned cached_ = 0;  // pGlint->InFifoSpace
  FifoStats s_;
};

}  // namespace latsim::workloads
