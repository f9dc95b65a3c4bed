#include "models/chipset/dram.h"
#include <stdexcept>

namespace latsim::chipset {

void Dram::write(uint64_t addr, const void* src, size_t len) {
  if (addr + len > size_) throw std::out_of_range("DRAM write beyond installed memory");
  auto* s = static_cast<const uint8_t*>(src);
  while (len) {
    auto& page = pages_[addr >> 12];
    size_t off = addr & 4095, n = std::min(len, size_t(4096 - off));
    std::memcpy(page.data() + off, s, n);
    addr += n, s += n, len -= n;
  }
}

void Dram::read(uint64_t addr, void* dst, size_t len) const {
  auto* d = static_cast<uint8_t*>(dst);
  while (len) {
    size_t off = addr & 4095, n = std::min(len, size_t(4096 - off));
    auto it = pages_.find(addr >> 12);
    if (it == pages_.end())
      std::memset(d, 0, n);
    else
      std::memcpy(d, it->second.data() + off, n);
    addr += n, d += n, len -= n;
  }
}

}  // namespace latsim::chipset
