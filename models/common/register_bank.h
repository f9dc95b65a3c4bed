#pragma once
// Device registers as a datasheet lists them, in the spirit of VCML's reg<T> and
// gem5's register banks: a Register has a name, a place (offset, width; or an array
// of elements at a stride), a reset value and access rights, and holds its value; a
// RegisterBank decodes an access by offset through a lookup table and either applies
// the access rights to the stored value or calls the register's hooks, plain
// member-function pointers of the device that carry its side effects.
//
// Decode rules (those of the devices' byte-enable logic):
// - an access goes to the one register holding its first byte (a wide access to a
//   narrow register does not spill into the next one); `lane` is that byte's place
//   within the register, and a read returns the register's value shifted down by it;
// - a read-only and a write-only register may share an offset (ATA Status/Command);
// - a read nobody claims returns the bank's floating value; such a write is dropped;
// - a write hook sees the written bytes in their lanes of the register (the others
//   zero) and io.lane/io.len; Register::apply does what the access rights say.
#include <cassert>
#include <cstdint>
#include <cstring>
#include <systemc>
#include <tlm>
#include <vector>

namespace latsim {

enum class RegAccess : uint8_t { RO, WO, RW, W1C };

// Which bits of a register a write changes, and how.
struct RegRights {
  uint32_t rw = ~0u;     // bits a write sets to the written value
  uint32_t w1c = 0;      // bits a written 1 clears (status bits)
  bool readable = true;  // false: reads float (write-only register)
  bool writable = true;  // false: writes are not decoded to it (read-only register)

  RegRights(RegAccess a)  // NOLINT(google-explicit-constructor): the common case
      : rw(a == RegAccess::WO || a == RegAccess::RW ? ~0u : 0u),
        w1c(a == RegAccess::W1C ? ~0u : 0u),
        readable(a != RegAccess::WO),
        writable(a != RegAccess::RO) {}
  RegRights(uint32_t rw_bits, uint32_t w1c_bits) : rw(rw_bits), w1c(w1c_bits) {}
};

// Where a register sits in its bank's address space (units: bytes, or register
// indices for an indirect window such as the IO-APIC's).
struct RegLayout {
  uint32_t offset;
  uint8_t width;        // units of one element; its value is at most 32 bits
  uint16_t count = 1;   // elements of a register array (hooked registers only)
  uint16_t stride = 0;  // units from one element to the next; 0 = width
};

// One access as it reaches a register.
struct RegIo {
  sc_core::sc_time at;                // when it reaches the device, annotated delay included
  unsigned index = 0;                 // element of a register array
  unsigned lane = 0;                  // unit of the element the access starts at
  unsigned len = 4;                   // bytes accessed
  sc_core::sc_time* delay = nullptr;  // the transaction's delay, for wait states
  tlm::tlm_generic_payload* payload = nullptr;  // the transaction; null for a direct call
};

template <class Owner>
class RegisterBank;

template <class Owner>
class Register {
 public:
  using ReadHook = uint32_t (Owner::*)(const RegIo&);
  using WriteHook = void (Owner::*)(uint32_t, const RegIo&);

  Register(RegisterBank<Owner>& bank, const char* name, RegLayout at, RegRights rights,
           uint32_t reset = 0, ReadHook on_read = nullptr, WriteHook on_write = nullptr)
      : name_(name),
        at_(at),
        rights_(rights),
        reset_(reset & width_mask()),
        value_(reset_),
        rd_(on_read),
        wr_(on_write) {
    if (at_.stride == 0) at_.stride = at_.width;
    assert(at_.count == 1 || ((rd_ || !rights_.readable) && (wr_ || !rights_.writable)));
    bank.add(*this);
  }
  Register(const Register&) = delete;
  Register& operator=(const Register&) = delete;

  const char* name() const { return name_; }
  const RegLayout& layout() const { return at_; }
  const RegRights& rights() const { return rights_; }
  uint32_t reset_value() const { return reset_; }
  void set_reset_value(uint32_t v) { reset_ = v & width_mask(); }
  void reset() { value_ = reset_; }

  // The stored value, as the device itself sees and changes it (no access rights).
  operator uint32_t() const { return value_; }  // NOLINT(google-explicit-constructor)
  Register& operator=(uint32_t v) {
    value_ = v & width_mask();
    return *this;
  }
  Register& operator|=(uint32_t v) { return *this = value_ | v; }
  Register& operator&=(uint32_t v) { return *this = value_ & v; }

  // A write as the access rights have it (what a register without a write hook does);
  // `v` holds the written bytes in their lanes, as a write hook gets them.
  void apply(uint32_t v, const RegIo& io) {
    const uint32_t lanes = lane_mask(io);
    value_ = (value_ & ~(rights_.rw & lanes)) | (v & rights_.rw & lanes);
    value_ &= ~(v & rights_.w1c & lanes);
  }

 private:
  friend class RegisterBank<Owner>;
  static uint32_t shift_up(uint32_t v, unsigned lane) { return lane < 4 ? v << (8 * lane) : 0; }
  uint32_t width_mask() const { return at_.width >= 4 ? ~0u : (1u << (8 * at_.width)) - 1; }
  // The bits of the element an access of io.len bytes at io.lane covers.
  uint32_t lane_mask(const RegIo& io) const {
    const uint32_t m = io.len >= 4 ? ~0u : (1u << (8 * io.len)) - 1;
    return shift_up(m, io.lane) & width_mask();
  }
  uint32_t extent() const { return at_.offset + (at_.count - 1u) * at_.stride + at_.width; }
  // Element and lane of unit `off`; false if it falls between elements.
  bool locate(uint32_t off, RegIo& io) const {
    const uint32_t rel = off - at_.offset;
    io.index = at_.count == 1 ? 0 : rel / at_.stride;
    io.lane = at_.count == 1 ? rel : rel % at_.stride;
    return io.lane < at_.width;
  }

  const char* name_;
  RegLayout at_;
  RegRights rights_;
  uint32_t reset_, value_;
  ReadHook rd_;
  WriteHook wr_;
};

template <class Owner>
class RegisterBank {
 public:
  using Reg = Register<Owner>;

  // `floating`: what a read nobody claims returns (0xff for an undriven ISA data bus).
  explicit RegisterBank(Owner* owner, uint32_t floating = 0) : owner_(owner), float_(floating) {}
  RegisterBank(const RegisterBank&) = delete;
  RegisterBank& operator=(const RegisterBank&) = delete;

  uint32_t read(uint32_t off, unsigned len, RegIo& io) {
    io.len = len;
    Reg* r = decode(rd_, off, io);
    const uint32_t v = !r ? float_ : r->rd_ ? (owner_->*(r->rd_))(io) : r->value_;
    return truncate(r ? shift_down(v, io.lane) : v, len);
  }
  void write(uint32_t off, unsigned len, uint32_t v, RegIo& io) {
    io.len = len;
    Reg* r = decode(wr_, off, io);
    if (!r) return;
    const uint32_t in_lanes = Reg::shift_up(v, io.lane) & r->lane_mask(io);
    if (!r->wr_) return r->apply(in_lanes, io);
    (owner_->*(r->wr_))(in_lanes, io);
  }
  // Direct accesses (the device's own API, tests): at the current simulated time, as a
  // transaction without annotated delay (wait states a hook adds are dropped).
  uint32_t read(uint32_t off, unsigned len) {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    RegIo io{sc_core::sc_time_stamp(), 0, 0, len, &delay};
    return read(off, len, io);
  }
  void write(uint32_t off, unsigned len, uint32_t v) {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    RegIo io{sc_core::sc_time_stamp(), 0, 0, len, &delay};
    write(off, len, v, io);
  }
  // An access that may cover several registers, split at their boundaries (PCI
  // configuration space: a dword read at 0x00 returns Vendor and Device ID).
  uint32_t read_span(uint32_t off, unsigned len) {
    uint32_t v = 0;
    for (unsigned done = 0; done < len && done < 4;) {
      const unsigned n = span(rd_, off + done, len - done);
      v |= read(off + done, n) << (8 * done);
      done += n;
    }
    return v;
  }
  void write_span(uint32_t off, unsigned len, uint32_t v) {
    for (unsigned done = 0; done < len && done < 4;) {
      const unsigned n = span(wr_, off + done, len - done);
      write(off + done, n, v >> (8 * done));
      done += n;
    }
  }

  // One TLM access of at most 4 bytes, little-endian, as an x86 IN/OUT or MOV of that size.
  // It completes unless a hook ends it otherwise (a PCI Retry, say).
  void transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    const unsigned len = p.get_data_length() < 4 ? p.get_data_length() : 4;
    RegIo io{sc_core::sc_time_stamp() + delay, 0, 0, len, &delay, &p};
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    uint32_t v = 0;
    if (p.is_write()) {
      std::memcpy(&v, p.get_data_ptr(), len);
      write(uint32_t(p.get_address()), len, v, io);
    } else if (p.is_read()) {
      v = read(uint32_t(p.get_address()), len, io);
      std::memcpy(p.get_data_ptr(), &v, len);
    }
  }

  void reset() {
    for (Reg* r : regs_) r->reset();
  }
  const std::vector<Reg*>& registers() const { return regs_; }
  // The register a read (or write) at `off` decodes to, or null.
  const Reg* decodes_to(uint32_t off, bool write = false) const {
    const auto& t = write ? wr_ : rd_;
    return off < t.size() && t[off] != kNone ? regs_[t[off]] : nullptr;
  }

 private:
  friend class Register<Owner>;
  static constexpr uint8_t kNone = 0xff;

  void add(Reg& r) {
    assert(regs_.size() < kNone);
    const auto i = uint8_t(regs_.size());
    regs_.push_back(&r);
    if (r.rights_.readable) claim(rd_, r, i);
    if (r.rights_.writable) claim(wr_, r, i);
  }
  static void claim(std::vector<uint8_t>& table, const Reg& r, uint8_t i) {
    if (table.size() < r.extent()) table.resize(r.extent(), kNone);
    for (uint32_t e = 0; e < r.at_.count; ++e)
      for (uint32_t u = 0; u < r.at_.width; ++u) {
        uint8_t& slot = table[r.at_.offset + e * r.at_.stride + u];
        assert(slot == kNone);  // two registers of one direction never overlap
        slot = i;
      }
  }
  Reg* decode(const std::vector<uint8_t>& table, uint32_t off, RegIo& io) const {
    if (off >= table.size() || table[off] == kNone) return nullptr;
    Reg* r = regs_[table[off]];
    return r->locate(off, io) ? r : nullptr;
  }
  // Bytes from `off` (at most `len`) that stay in one register; 1 where none claims it.
  unsigned span(const std::vector<uint8_t>& table, uint32_t off, unsigned len) const {
    RegIo io;
    const Reg* r = decode(table, off, io);
    const unsigned left = r ? r->at_.width - io.lane : 1;
    return len < left ? len : left;
  }
  static uint32_t shift_down(uint32_t v, unsigned lane) { return lane < 4 ? v >> (8 * lane) : 0; }
  static uint32_t truncate(uint32_t v, unsigned len) {
    return len >= 4 ? v : v & ((1u << (8 * len)) - 1);
  }

  Owner* owner_;
  uint32_t float_;
  std::vector<Reg*> regs_;
  std::vector<uint8_t> rd_, wr_;  // unit offset -> index into regs_
};

}  // namespace latsim
