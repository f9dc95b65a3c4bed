// End-to-end: a run with the latencytest workload leaves its per-sample plot
// (latencytest-<task>.svg) next to the other outputs: well-formed SVG, the
// fragment and buffer lines placed by value (buffer = fragments x fragment), and
// the scheduling-latency band reaching at least the fragment line (a write cannot
// return sooner, on average, than one fragment is played).
#include <gtest/gtest.h>
#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double attr(const std::string& svg, const std::string& element_re, const std::string& name) {
  std::smatch m;
  const std::regex re(element_re + "[^>]*?\\b" + name + "=\"([-0-9.]+)\"");
  if (!std::regex_search(svg, m, re)) return NAN;
  return std::stod(m[1]);
}

}  // namespace

TEST(LatencytestPlot, RunWritesThePerSamplePlot) {
  const fs::path d =
      fs::temp_directory_path() / ("latsim-ltplot-" + std::to_string(::getpid())) / "run";
  fs::remove_all(d);
  const std::string cmd = "env -u SC_COPYRIGHT_MESSAGE " + std::string(LATSIM_BINARY) + " run " +
                          LATSIM_SOURCE_DIR + "/scenarios/latencytest-stress.yaml -q " +
                          "--duration 2s --out " + d.string();
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  fs::path plot;
  for (const auto& e : fs::directory_iterator(d))
    if (e.path().filename().string().rfind("latencytest-", 0) == 0 &&
        e.path().extension() == ".svg")
      plot = e.path();
  ASSERT_FALSE(plot.empty()) << "no latencytest-*.svg in " << d;
  EXPECT_EQ(std::system(("xmllint --noout " + plot.string()).c_str()), 0);
  const std::string svg = slurp(plot);

  // 3 fragments of 256 bytes at 44.1 kHz, 16-bit stereo: 1.451 ms and 4.354 ms.
  EXPECT_NE(svg.find("3 fragments of 1.451 ms"), std::string::npos);
  const double frame_top = attr(svg, "<rect x=\"70.0\"", "y");
  const double frame_bottom = frame_top + attr(svg, "<rect x=\"70.0\"", "height");
  const double fragment = attr(svg, "<line class=\"fragment\"", "y1");
  const double buffer = attr(svg, "<line class=\"buffer\"", "y1");
  ASSERT_LT(buffer, fragment);  // higher on the page: the larger value
  EXPECT_NEAR((frame_bottom - buffer) / (frame_bottom - fragment), 3.0, 0.01);

  // The scheduling-latency band: inside the frame, its top at or above the fragment line.
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(svg, m, std::regex("<polygon class=\"write\" points=\"([^\"]+)\"")));
  std::istringstream pts(m[1]);
  double x, y, top = 1e9;
  char comma;
  size_t n = 0;
  while (pts >> x >> comma >> y) {
    EXPECT_GE(y, frame_top - 0.1);
    EXPECT_LE(y, frame_bottom + 0.1);
    top = std::min(top, y);
    n++;
  }
  EXPECT_GT(n, 100u);  // columns of samples over the 1.5 s after the warm-up
  EXPECT_LE(top, fragment + 0.1);
  fs::remove_all(d.parent_path());
}
