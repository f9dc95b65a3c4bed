// tools/bootstrap.sh picks its packages by target: tools/latsim (one target) asks only for
// what building and running need and configures without the tests; tools/test (everything)
// asks for the test suite's packages too and turns the tests back on. Run against fake
// dpkg-query (nothing installed) and cmake, in dry-run mode: nothing is installed or built.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
const std::string kSource = LATSIM_SOURCE_DIR;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void script(const fs::path& p, const std::string& body) {
  std::ofstream(p) << "#!/bin/sh\n" << body;
  ::chmod(p.c_str(), 0755);
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

class Bootstrap : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("latsim-bootstrap-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    // A copy of the script alone: its repo root has no viewer tests to set up.
    fs::create_directories(dir_ / "repo/tools");
    fs::copy_file(kSource + "/tools/bootstrap.sh", dir_ / "repo/tools/bootstrap.sh");
    fs::create_directories(dir_ / "bin");
    script(dir_ / "bin/dpkg-query", "exit 0\n");  // knows no package: all are missing
    // cmake: log the call; a configure writes the cache's LATSIM_TESTS as asked.
    script(dir_ / "bin/cmake",
           "echo \"cmake $*\" >>\"$FAKE_LOG\"\n"
           "case \"$*\" in *--build*) exit 0 ;; esac\n"
           "mkdir -p \"$LATSIM_BUILD_DIR\"\n"
           "case \"$*\" in *-DLATSIM_TESTS=OFF*) t=OFF ;; *) t=ON ;; esac\n"
           "echo \"LATSIM_TESTS:BOOL=$t\" >\"$LATSIM_BUILD_DIR/CMakeCache.txt\"\n");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // latsim_bootstrap TARGET; its stderr (the dry run's would-be apt-get commands).
  std::string bootstrap(const std::string& target) {
    const fs::path err = dir_ / "stderr";
    const std::string cmd =
        "cd '" + dir_.string() + "' && env PATH='" + (dir_ / "bin").string() +
        ":'\"$PATH\" LATSIM_BOOTSTRAP_DRY_RUN=1 LATSIM_CMAKE_ARGS= " + "LATSIM_BUILD_DIR='" +
        (dir_ / "build").string() + "' FAKE_LOG='" + (dir_ / "cmake.log").string() +
        "' bash -c 'source repo/tools/bootstrap.sh && latsim_bootstrap " + target +
        "' </dev/null >/dev/null 2>'" + err.string() + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(err);
    return slurp(err);
  }

  fs::path dir_;
};

TEST_F(Bootstrap, OneTargetInstallsOnlyWhatBuildingAndRunningNeed) {
  const std::string err = bootstrap("latsim");
  EXPECT_TRUE(contains(err, "apt-get install")) << err;
  for (const char* p : {"cmake", "libsystemc-dev", "libspdlog-dev", "libabsl-dev"})
    EXPECT_TRUE(contains(err, std::string(" ") + p)) << p << "\n" << err;
  for (const char* p : {"googletest", "libgtest-dev", "libbenchmark-dev", "gtkwave", "nodejs",
                        "clang-14", "libxml2-utils"})
    EXPECT_FALSE(contains(err, p)) << p << "\n" << err;
  EXPECT_TRUE(contains(slurp(dir_ / "cmake.log"), "-DLATSIM_TESTS=OFF"));
}

TEST_F(Bootstrap, EverythingInstallsTheTestPackagesAndTurnsTheTestsBackOn) {
  bootstrap("latsim");  // configured without the tests first
  const std::string err = bootstrap("");
  for (const char* p : {"libsystemc-dev", "googletest", "libgtest-dev", "gtkwave", "nodejs"})
    EXPECT_TRUE(contains(err, std::string(" ") + p)) << p << "\n" << err;
  EXPECT_TRUE(contains(slurp(dir_ / "cmake.log"), "-DLATSIM_TESTS=ON"));
  EXPECT_EQ(slurp(dir_ / "build/CMakeCache.txt"), "LATSIM_TESTS:BOOL=ON\n");
}

}  // namespace
