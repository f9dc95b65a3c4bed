#pragma once
// Positive decode of an address range to one of a router's output sockets.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace latsim {

// I/O space and memory space share one TLM address: x86 ports sit above 4 GiB.
constexpr uint64_t kIoSpace = 1ull << 32;
constexpr uint64_t io_addr(uint16_t port) { return kIoSpace + port; }

class AddressMap {
 public:
  struct Range {
    uint64_t base, size;
    int port;  // router output index
    std::string name;
    int initial_latency_clocks;  // target's DEVSEL + initial wait states (PCI)
    uint64_t target_offset;      // where the range starts in the target's own register space
  };
  struct Hit {
    const Range* range;
    uint64_t offset;
  };

  void add(uint64_t base, uint64_t size, int port, std::string name, int initial_latency_clocks = 0,
           uint64_t target_offset = 0) {
    ranges_.push_back({base, size, port, std::move(name), initial_latency_clocks, target_offset});
  }
  std::optional<Hit> decode(uint64_t addr) const {
    for (const auto& r : ranges_)
      if (addr >= r.base && addr - r.base < r.size) return Hit{&r, addr - r.base + r.target_offset};
    return std::nullopt;
  }

 private:
  std::vector<Range> ranges_;
};

}  // namespace latsim
