#pragma once
// The debug log: one channel per model family and kernel subsystem, switched on by
// `--debug-flags`, like gem5's. Each line starts with the simulated time (the running
// thread's, lead included) and the component that wrote it; nothing from the wall clock.
// A line that is off costs one byte compare: its arguments are not even evaluated.
#include <fmt/format.h>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <systemc>
#include <vector>

namespace latsim::log {

// The channels, once: name and what its lines say.
#define LATSIM_LOG_CHANNELS(X)                                                             \
  X(cpu, "Pentium III cores: memory misses held off by a bus master, SMM entries")         \
  X(fsb, "host bridge: CPU cycles to PCI that wait for GNT# or are retried")               \
  X(pci, "PCI bus: bus-master burst trains announced, trains deferred by a host cycle")    \
  X(isa, "PCI-ISA bridge: every ISA port cycle (at level trace)")                          \
  X(ide, "IDE controller: ATA commands issued, DMA start and end per PRD entry, INTRQ")    \
  X(scsi, "AIC-7880 model: SCBs started, data phases planned, commands completed")         \
  X(apic, "interrupt controllers: I/O APIC deliveries, 8259A input changes")               \
  X(pit, "8254 PIT: counter programming (and each OUT edge, at level trace)")              \
  X(video, "Permedia2: host writes to a full FIFO (held or retried)")                      \
  X(nic, "RTL8139 model: frames written to the receive ring, or dropped")                  \
  X(sound, "ES1371 model and driver: DAC periods elapsed, underruns")                      \
  X(usb, "UHCI driver: its (shared) interrupts")                                           \
  X(sched, "scheduler: context switches, wake-ups and the CPU each wakes on")              \
  X(irq, "interrupt entry and exit: do_IRQ, the local timer, IPIs")                        \
  X(softirq, "softirqs: raised, run inline or in ksoftirqd")                               \
  X(time, "timekeeping: PIT ticks, lost ticks")                                            \
  X(block, "block layer: requests submitted, merged, dispatched and completed")            \
  X(mm, "memory: slab reaping, TLB shootdowns")                                            \
  X(fs, "file systems: ext3 and reiserfs journal commits")                                 \
  X(locks, "locks: contended spinlocks and how long they spun")                            \
  X(net, "network stack: packets per net_rx_action")                                       \
  X(workloads, "user programs: cyclictest wake-ups, latencytest loops, kernel build jobs") \
  X(printk, "kernel messages (dmesg.txt) as the kernel writes them, at level info")

enum class Channel : uint8_t {
#define LATSIM_LOG_ENUM(name, doc) name,
  LATSIM_LOG_CHANNELS(LATSIM_LOG_ENUM)
#undef LATSIM_LOG_ENUM
};
constexpr size_t kChannels = 0
#define LATSIM_LOG_COUNT(name, doc) +1
    LATSIM_LOG_CHANNELS(LATSIM_LOG_COUNT)
#undef LATSIM_LOG_COUNT
    ;

// spdlog's order and names.
enum class Level : uint8_t { trace, debug, info, warn, error, off };

struct ChannelInfo {
  std::string_view name, doc;
};
const std::array<ChannelInfo, kChannels>& channels();

struct Config {
  std::vector<std::string> flags;  // channel names, or "all"
  std::string level;               // empty: warn, and debug for the flagged channels
  std::string file;                // empty: stderr
};
// Check `c` and open its sink; throws std::invalid_argument naming what is accepted
// ("unknown debug flag 'pcii': accepted: all, cpu, fsb, ..."), std::runtime_error
// when the file cannot be opened. Before any call: warnings and errors to stderr.
void configure(const Config& c);
// `--debug-flags help`: every flag with its description, one per line.
std::string flags_help();
// What is wrong with `flag` as a debug flag (the accepted ones), or "" if nothing.
std::string unknown_flag(std::string_view flag);
void flush();

namespace detail {
// The lowest level each channel writes: a flagged channel's is the log level (debug if
// none is given), any other channel's the log level but at least info (debug and trace
// lines come only from flagged channels).
inline std::array<Level, kChannels> threshold = [] {
  std::array<Level, kChannels> t{};
  t.fill(Level::warn);
  return t;
}();
void write(Channel c, Level l, std::string_view who, std::string&& msg);
}  // namespace detail

inline bool on(Channel c, Level l) { return l >= detail::threshold[size_t(c)]; }

}  // namespace latsim::log

// A time in a log line: microseconds to the nanosecond ("12.345 us").
template <>
struct fmt::formatter<sc_core::sc_time> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(const sc_core::sc_time& t, Context& ctx) const {
    const uint64_t ns = t.value() / 1000;  // the default resolution: 1 ps
    return fmt::format_to(ctx.out(), "{}.{:03} us", ns / 1000, ns % 1000);
  }
};

// LATSIM_LOG(pci, debug, name(), "grant to {} at {}", m, t): formats and writes the line
// only if the channel writes that level; `who` and the arguments are evaluated only then.
#define LATSIM_LOG(chan, lvl, who, ...)                                                          \
  do {                                                                                           \
    if (::latsim::log::on(::latsim::log::Channel::chan, ::latsim::log::Level::lvl))              \
      ::latsim::log::detail::write(::latsim::log::Channel::chan, ::latsim::log::Level::lvl, who, \
                                   ::fmt::format(__VA_ARGS__));                                  \
  } while (0)
#define LATSIM_DEBUG(chan, who, ...) LATSIM_LOG(chan, debug, who, __VA_ARGS__)
#define LATSIM_TRACE(chan, who, ...) LATSIM_LOG(chan, trace, who, __VA_ARGS__)
