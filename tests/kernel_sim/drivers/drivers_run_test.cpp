// The NIC and sound drivers and latencytest, end to end through the real binary:
// netdev_max_backlog bounds the packets one rtl8139_poll takes, the ES1371 SRC
// access lasts as long as the device keeps its BUSY bit, and latencytest.txt keeps
// its format (golden).
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
const std::string kScenario =
    std::string(LATSIM_SOURCE_DIR) + "/tests/tools/data/latencytest-short.yaml";

fs::path run(const std::string& tag, const std::string& args,
             const std::string& scenario = kScenario) {
  const fs::path out =
      fs::temp_directory_path() / ("latsim-drivers-" + tag + "-" + std::to_string(::getpid()));
  const std::string cmd =
      std::string(LATSIM_BINARY) + " run " + scenario + " -q --out " + out.string() + " " + args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return out;
}

nlohmann::json metrics(const fs::path& out) {
  std::ifstream in(out / "metrics.json");
  return nlohmann::json::parse(in);
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// net_rx_action's budget is netdev_max_backlog: while the FIFO audio task keeps
// ksoftirqd off its CPU, frames pile up in the ring; one poll takes at most the budget.
TEST(Rtl8139, NetdevMaxBacklogBoundsPacketsPerPoll) {
  const auto big = run("bl300", "--set /proc/sys/net/core/netdev_max_backlog=300");
  const auto small = run("bl2", "--set /proc/sys/net/core/netdev_max_backlog=2");
  const auto b = metrics(big)["drivers"]["eth0"], s = metrics(small)["drivers"]["eth0"];
  EXPECT_GT(b["max_packets_per_poll"].get<int>(), 2);
  // net_rx_action also breaks after a jiffy (jiffies - start_time > 1), which the
  // preemptible VP ksoftirqd reaches when the SCHED_FIFO writer preempts it: fewer.
  EXPECT_LT(b["time_squeeze"].get<int>(), s["time_squeeze"].get<int>());
  EXPECT_LE(s["max_packets_per_poll"].get<int>(), 2);
  EXPECT_GT(s["max_packets_per_poll"].get<int>(), 0);
  EXPECT_GT(s["time_squeeze"].get<int>(), 0);  // budget used up: softirq raised again
  EXPECT_GT(s["polls"].get<int>(), b["polls"].get<int>());
  fs::remove_all(big);
  fs::remove_all(small);
}

// snd_es1371_src_read polls until BUSY clears twice (the previous request, then its
// own), so it lasts about 2 x busy_frames AC-link frames (20.833 us each); with the
// mechanism off only the port accesses remain.
TEST(Es1371, SrcReadLoopFollowsTheDeviceBusyTime) {
  const double frame_us = 256.0 / 12.288;
  for (int n : {27, 9}) {
    const auto out =
        run("src" + std::to_string(n),
            "--duration 0.1s --set platform.sound.src_busy_frames=" + std::to_string(n));
    const double us = metrics(out)["drivers"]["audiopci"]["src_max_us"].get<double>();
    EXPECT_GT(us, (2 * n - 2) * frame_us) << n;
    EXPECT_LT(us, 2 * n * frame_us + 20.0) << n;
    fs::remove_all(out);
  }
  const auto off = run("src0", "--duration 0.1s --set platform.sound.src_busy_frames=0");
  // No frame waits: the port accesses, and at most a timer tick landing inside.
  EXPECT_LT(metrics(off)["drivers"]["audiopci"]["src_max_us"].get<double>(), 2 * frame_us);
  fs::remove_all(off);
}

// An underrun stops the stream (snd_pcm_stop: DAC1 disabled, no more period interrupts)
// and the next write recovers it: on 2.6, ALSA's OSS emulation prepares it again, and the
// ES1371's prepare reprograms the SRC (one read and two writes); 2.4's OSS driver only
// restarts DAC2 (its /dev/dsp channel).
TEST(Es1371, UnderrunStopsTheStreamAndTheNextWritePreparesIt) {
  const std::string scenario =
      std::string(LATSIM_SOURCE_DIR) + "/tests/tools/data/audio-underrun.yaml";
  const auto out = run("xrun26", "", scenario);
  const auto a = metrics(out)["drivers"]["audiopci"];
  const int xruns = a["xruns"].get<int>(), prepares = a["prepares"].get<int>();
  EXPECT_GE(xruns, 2);
  // The open's prepare, then one per underrun (the last one may still be waiting).
  EXPECT_GE(prepares, xruns);
  EXPECT_LE(prepares, xruns + 1);
  EXPECT_EQ(a["src_accesses"].get<int>(), 3 * prepares);
  // Stopped streams play nothing: far fewer periods than 1 s of 1.451 ms fragments.
  EXPECT_LT(a["periods"].get<int>(), 600);
  fs::remove_all(out);
  const auto old = run("xrun24",
                       "--set kernel.flavour=2.4.20-lowlatency --set kernel.voluntary_preemption=0 "
                       "--set kernel.kernel_preemption=0 --set kernel.softirq_preemption=0 "
                       "--set kernel.hardirq_preemption=0",
                       scenario);
  const auto b = metrics(old)["drivers"]["audiopci"];
  EXPECT_GE(b["xruns"].get<int>(), 1);
  EXPECT_EQ(b["prepares"].get<int>(), 1);
  EXPECT_EQ(b["src_accesses"].get<int>(), 3);
  fs::remove_all(old);
}

// latencytest.txt: the seed's BASIC RESULTS layout with this run's values, and
// /proc/interrupts with the audio line shared by the two UHCI controllers. When a
// change is intended, regenerate with LATSIM_UPDATE_GOLDEN=1.
TEST(Latencytest, GoldenReport) {
  const auto out = run("golden", "");
  for (const char* f : {"latencytest.txt", "interrupts.txt"}) {
    const fs::path want = fs::path(LATSIM_SOURCE_DIR) /
                          (std::string("tests/tools/data/golden/latencytest-short.") + f);
    const std::string got = read_text(out / f);
    if (std::getenv("LATSIM_UPDATE_GOLDEN")) {
      std::ofstream(want, std::ios::binary) << got;
    } else {
      EXPECT_EQ(got, read_text(want)) << f << " differs from " << want;
    }
  }
  const auto m = metrics(out)["workloads"]["latencytest"];
  EXPECT_EQ(m["phases"].size(), 7u);
  // A phase of loops: ~138 when nothing stretches them, fewer as disk DMA does.
  EXPECT_GT(m["phases"]["disk_read"]["samples"].get<int>(), 50);
  fs::remove_all(out);
}

// head -c N /dev/zero > tmpfile: writes dirty the page cache at memory speed;
// pdflush (above dirty_background_ratio) and the throttled writer (above
// dirty_ratio) write them back as WRITE DMA requests of at most max_sectors_kb.
TEST(DiskWrite, DirtyPagesGoOutAsWriteDmaRequests) {
  const auto out =
      run("dw", "", std::string(LATSIM_SOURCE_DIR) + "/tests/tools/data/disk-write.yaml");
  const auto m = metrics(out);
  const auto wb = m["drivers"]["writeback"];
  EXPECT_GT(wb["pages_written"].get<int>(), 1000);
  EXPECT_GT(wb["write_requests"].get<int>(), 100);
  EXPECT_GT(wb["max_dirty_pages"].get<int>(), 131072 / 10);        // past the background ratio
  EXPECT_LE(wb["max_dirty_pages"].get<int>(), 131072 * 40 / 100);  // held at dirty_ratio
  EXPECT_EQ(m["disk"]["max_request_kb"].get<int>(), 32);
  EXPECT_EQ(m["disk"]["bytes_read"].get<int>(), 0);
  fs::remove_all(out);
}

}  // namespace
