#pragma once
// A PCI function's type 0 configuration header (PCI 2.2 6.1) as a register bank:
// identity, Command, Status, Latency Timer, BARs, interrupt line/pin, MIN_GNT and
// MAX_LAT. A bus master's Latency Timer is its own (PCI 2.1 3.5.4): the bus reads
// it when GNT# is taken away from that master, and software sets it by a
// configuration write, as `setpci -s DEV latency_timer=N` does.
#include <array>
#include <cstdint>
#include "models/common/register_bank.h"

namespace latsim::pci {

// One Base Address Register as the function decodes it (PCI 2.2 6.2.5.1).
struct PciBar {
  uint32_t size = 0;  // bytes, a power of two; 0: not implemented (reads 0)
  bool io = false;    // I/O space (bit 0 reads 1) rather than 32-bit memory
};

// What a function's header reports and which of its bits software may change.
struct PciIdentity {
  uint16_t vendor_id = 0, device_id = 0;
  uint8_t revision_id = 0;
  uint32_t class_code = 0;           // base class, sub-class, programming interface
  uint16_t command_bits = 0;         // the Command bits the function implements
  uint16_t status = 0x0200;          // Status at reset: DEVSEL timing medium
  uint8_t interrupt_pin = 0;         // 1..4 = INTA#..INTD#, 0 = none
  uint8_t min_gnt = 0, max_lat = 0;  // 250 ns units
  std::array<PciBar, 6> bars{};
};

class PciConfig {
 public:
  enum Offset : uint8_t {
    VENDOR_ID = 0x00,
    DEVICE_ID = 0x02,
    COMMAND = 0x04,
    STATUS = 0x06,
    REVISION_ID = 0x08,
    CLASS_CODE = 0x09,
    CACHE_LINE_SIZE = 0x0c,
    LATENCY_TIMER = 0x0d,
    HEADER_TYPE = 0x0e,
    BIST = 0x0f,
    BAR0 = 0x10,
    INTERRUPT_LINE = 0x3c,
    INTERRUPT_PIN = 0x3d,
    MIN_GNT = 0x3e,
    MAX_LAT = 0x3f,
  };
  enum Command : uint16_t {
    IO_SPACE = 1u << 0,
    MEMORY_SPACE = 1u << 1,
    BUS_MASTER = 1u << 2,
    MEMORY_WRITE_INVALIDATE = 1u << 4,
  };

  explicit PciConfig(const PciIdentity& id);
  PciConfig(const PciConfig&) = delete;
  PciConfig& operator=(const PciConfig&) = delete;

  // Configuration cycles (CF8h/CFCh): any size, across register boundaries.
  uint32_t read(unsigned offset, unsigned len) { return regs_.read_span(offset, len); }
  void write(unsigned offset, unsigned len, uint32_t v) { regs_.write_span(offset, len, v); }

  uint8_t latency_timer() const { return uint8_t(latency_timer_); }  // bus clocks
  void set_latency_timer(uint8_t clocks) { write(LATENCY_TIMER, 1, clocks); }
  uint16_t command() const { return uint16_t(command_); }
  const RegisterBank<PciConfig>& registers() const { return regs_; }

 private:
  using Reg = Register<PciConfig>;
  void write_command(uint32_t v, const RegIo& io) { command_.apply(v & command_bits_, io); }
  uint32_t read_bar(const RegIo& io) { return bar_[io.index]; }
  void write_bar(uint32_t v, const RegIo& io);

  RegisterBank<PciConfig> regs_{this};
  Reg vendor_id_ = Reg(regs_, "Vendor ID", {VENDOR_ID, 2}, RegAccess::RO);
  Reg device_id_ = Reg(regs_, "Device ID", {DEVICE_ID, 2}, RegAccess::RO);
  Reg command_ = Reg(regs_, "Command", {COMMAND, 2}, RegAccess::RW, 0, nullptr,
                     &PciConfig::write_command);  // bits not implemented read 0
  // Parity and abort status bits are write-1-to-clear; the rest is read-only.
  Reg status_ = Reg(regs_, "Status", {STATUS, 2}, RegRights{0, 0xf900});
  Reg revision_id_ = Reg(regs_, "Revision ID", {REVISION_ID, 1}, RegAccess::RO);
  Reg class_code_ = Reg(regs_, "Class Code", {CLASS_CODE, 3}, RegAccess::RO);
  Reg cache_line_size_ = Reg(regs_, "Cache Line Size", {CACHE_LINE_SIZE, 1}, RegAccess::RW);
  Reg latency_timer_ = Reg(regs_, "Latency Timer", {LATENCY_TIMER, 1}, RegAccess::RW);
  Reg header_type_ = Reg(regs_, "Header Type", {HEADER_TYPE, 1}, RegAccess::RO);
  Reg bist_ = Reg(regs_, "BIST", {BIST, 1}, RegAccess::RO);
  Reg bars_ = Reg(regs_, "Base Address", {BAR0, 4, 6}, RegAccess::RW, 0, &PciConfig::read_bar,
                  &PciConfig::write_bar);
  Reg interrupt_line_ = Reg(regs_, "Interrupt Line", {INTERRUPT_LINE, 1}, RegAccess::RW);
  Reg interrupt_pin_ = Reg(regs_, "Interrupt Pin", {INTERRUPT_PIN, 1}, RegAccess::RO);
  Reg min_gnt_ = Reg(regs_, "Min_Gnt", {MIN_GNT, 1}, RegAccess::RO);
  Reg max_lat_ = Reg(regs_, "Max_Lat", {MAX_LAT, 1}, RegAccess::RO);
  uint16_t command_bits_;
  std::array<uint32_t, 6> bar_{};
  std::array<uint32_t, 6> bar_mask_{};  // address bits a BAR decodes; the rest read as type
};

}  // namespace latsim::pci
