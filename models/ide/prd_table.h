#pragma once
// Physical Region Descriptor (PCI IDE Bus Master spec 1.0): 8 bytes per entry,
// base address (dword 0), byte count in bits 0-15 of dword 1 (0 = 64 KiB), EOT bit 31.
// A region may not cross a 64 KiB boundary.
#include <cstdint>

namespace latsim::ide {

struct PrdEntry {
  uint32_t base = 0;
  uint32_t bytes = 0;
  bool eot = false;

  static constexpr uint32_t kEot = 0x80000000u;
  static PrdEntry decode(uint32_t dw0, uint32_t dw1) {
    uint32_t n = dw1 & 0xffff;
    return {dw0 & ~1u, n == 0 ? 0x10000u : n, (dw1 & kEot) != 0};
  }
  uint32_t dw1() const { return (bytes & 0xffff) | (eot ? kEot : 0); }
  bool crosses_64k() const { return (base >> 16) != ((base + bytes - 1) >> 16); }
};

constexpr int kMaxPrdEntries = 256;  // Linux PRD_ENTRIES (one 2 KiB table page)

}  // namespace latsim::ide
