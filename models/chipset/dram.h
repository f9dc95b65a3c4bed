#pragma once
// Main memory contents (sparse, 4 KiB pages). Timing lives in the host bridge.
#include <array>
#include <cstdint>
#include <cstring>
#include <unordered_map>

namespace latsim::chipset {

class Dram {
 public:
  explicit Dram(uint64_t size_bytes) : size_(size_bytes) {}
  uint64_t size() const { return size_; }
  void write(uint64_t addr, const void* src, size_t len);
  void read(uint64_t addr, void* dst, size_t len) const;
  uint32_t read32(uint64_t addr) const {
    uint32_t v;
    read(addr, &v, 4);
    return v;
  }

 private:
  using Page = std::array<uint8_t, 4096>;
  uint64_t size_;
  std::unordered_map<uint64_t, Page> pages_;
};

}  // namespace latsim::chipset
