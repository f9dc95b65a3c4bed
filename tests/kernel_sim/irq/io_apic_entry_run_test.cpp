// IO-APIC redirection entries are reached through one index register (IOREGSEL) and one
// data window: every index-then-data pair must hold ioapic_lock, or another CPU's data
// lands in the entry this CPU selected. In latencytest-under-dma the NIC's request_irq
// (setup_IO_APIC_irqs' two writes for IRQ 11) comes while the other CPU masks and unmasks
// the level-triggered IRQ 10 on every audio interrupt; without the lock IRQ 10's unmask
// value landed in pin 11's entry, and eth0's asserted line then delivered the audio
// vector in a storm.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

TEST(IoApicEntry, EveryAudioVectorDeliveryIsTheCardsOwn) {
  const fs::path out = fs::temp_directory_path() / ("latsim-ioapic-" + std::to_string(::getpid()));
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + LATSIM_SOURCE_DIR +
                          "/tests/tools/data/latencytest-under-dma.yaml -q --out " + out.string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out / "metrics.json");
  const auto m = nlohmann::json::parse(in);
  const auto card = m["drivers"]["audiopci"]["irqs"].get<uint64_t>();
  const auto line = m["irqs"]["10"]["count"].get<uint64_t>();
  // One do_IRQ per interrupt the card raised, plus at most a few IRQ_INPROGRESS entries.
  EXPECT_GT(card, 1000u);
  EXPECT_LE(line, card + card / 100) << "IRQ 10 entered " << line << " times for " << card;
  // The NIC's line delivers its own vector: eth0 ran its handler in the net phases.
  EXPECT_GT(m["irqs"]["11"]["count"].get<uint64_t>(), 0u);
  // Every phase got samples: the audio task was never starved by a storm.
  for (const auto& [name, ph] : m["workloads"]["latencytest"]["phases"].items())
    EXPECT_GT(ph["samples"].get<uint64_t>(), 100u) << name;
  fs::remove_all(out);
}

}  // namespace
