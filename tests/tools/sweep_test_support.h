#pragma once
// Shared by the end-to-end tests that run the real binary (LATSIM_BINARY) in a per-test
// directory under the build tree: `latsim sweep` and `sweep-merge` first, also check, explain,
// bench, the debug log and trace.dat. Sweep points are short (--duration 1s or less: about
// 0.1-0.2 s of wall time each).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace sweep_test {

namespace fs = std::filesystem;
using nlohmann::json;

inline const std::string kSource = LATSIM_SOURCE_DIR;
inline const std::string kBinary = LATSIM_BINARY;
inline const std::string kScenario = kSource + "/scenarios/disk-dma-kernel-build.yaml";
inline const std::string kMaxSectors = "/sys/block/hda/queue/max_sectors_kb";
inline const std::string kReadAhead = "/sys/block/hda/queue/read_ahead_kb";

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

inline std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// 64-bit FNV-1a, as 16 hex digits: the point id of a canonical "k=v;...;seed=S" text.
inline std::string fnv1a(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// Whether a program is on PATH.
inline bool have_program(const std::string& name) {
  return std::system(("command -v " + sh_quote(name) + " >/dev/null 2>&1").c_str()) == 0;
}

using Files = std::map<std::string, std::string>;

// Everything under `root`: files by relative path with their bytes, directories as "DIR/".
// run-info.json (wall time) is left out.
inline Files snapshot(const fs::path& root) {
  Files m;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string rel = fs::relative(it->path(), root).generic_string();
    if (it->is_directory())
      m[rel + "/"] = "";
    else if (it->path().filename() != "run-info.json")
      m[rel] = slurp(it->path());
  }
  return m;
}

// What differs between two snapshots, for a failure message; empty when nothing does.
inline std::string differences(const Files& got, const Files& want) {
  std::string d;
  for (const auto& [name, bytes] : got) {
    const auto it = want.find(name);
    if (it == want.end())
      d += "  extra: " + name + "\n";
    else if (it->second != bytes)
      d += "  differs: " + name + "\n";
  }
  for (const auto& kv : want)
    if (!got.count(kv.first)) d += "  missing: " + kv.first + "\n";
  return d;
}

struct Result {
  int code = -1;
  std::string out, err;
};

inline std::ostream& operator<<(std::ostream& os, const Result& r) {
  return os << "exit " << r.code << "\n--- stdout ---\n" << r.out << "--- stderr ---\n" << r.err;
}

// One line of `latsim sweep --dry-run`: "INDEX<TAB>ID<TAB>k=v k=v seed=S".
struct Listed {
  size_t index = 0;
  std::string id;
  std::vector<std::string> overrides;  // "k=v" in param order, then "seed=S"
};

class Sweep : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const fs::path base = fs::path(kBinary).parent_path() / "tools_test_tmp";
    const std::string stem = std::string(info->test_suite_name()) + "." + info->name() + "-";
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(base, ec)) {  // left by dead earlier runs
      const std::string name = e.path().filename().string();
      if (name.rfind(stem, 0) != 0) continue;
      const std::string pid = name.substr(stem.size());
      if (!pid.empty() && pid.find_first_not_of("0123456789") == std::string::npos &&
          ::kill(pid_t(std::stol(pid)), 0) != 0 && errno == ESRCH)
        fs::remove_all(e.path(), ec);
    }
    dir_ = base / (stem + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "io");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);  // kept for a look when something failed
  }

  // The shell command line of `latsim ARGS...` (environment cleaned as in cli_test.cpp).
  std::string command(const std::vector<std::string>& args, const std::string& env = "") {
    std::string cmd = "env -u SC_COPYRIGHT_MESSAGE " + env + " " + sh_quote(kBinary);
    for (const auto& a : args) cmd += " " + sh_quote(a);
    return cmd;
  }

  // Run a shell command in this test's directory; its exit code and output.
  Result shell(const std::string& cmd) {
    const int n = ++calls_;
    const fs::path out = dir_ / "io" / ("stdout-" + std::to_string(n));
    const fs::path err = dir_ / "io" / ("stderr-" + std::to_string(n));
    const std::string full = "cd " + sh_quote(dir_.string()) + " && (" + cmd + ") </dev/null >" +
                             sh_quote(out.string()) + " 2>" + sh_quote(err.string());
    const int status = std::system(full.c_str());
    Result r;
    r.code = status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  Result latsim(const std::vector<std::string>& args, const std::string& env = "") {
    return shell("exec " + command(args, env));
  }

  // `latsim sweep kScenario ARGS...`
  Result sweep(const std::vector<std::string>& args, const std::string& env = "") {
    std::vector<std::string> a{"sweep", kScenario};
    a.insert(a.end(), args.begin(), args.end());
    return latsim(a, env);
  }

  // Start `latsim ARGS...` as a child of the test (for killing it); stdout and stderr go to
  // io/async-N.{out,err}.
  pid_t start(const std::vector<std::string>& args) {
    const int n = ++calls_;
    async_out_ = dir_ / "io" / ("async-" + std::to_string(n) + ".out");
    async_err_ = dir_ / "io" / ("async-" + std::to_string(n) + ".err");
    std::vector<std::string> argv{kBinary};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::unsetenv("SC_COPYRIGHT_MESSAGE");
      if (::chdir(dir_.c_str()) != 0) ::_exit(126);
      const int in = ::open("/dev/null", O_RDONLY);
      const int out = ::open(async_out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err = ::open(async_err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(err, 2);
      ::execv(cargv[0], cargv.data());
      ::_exit(127);
    }
    return pid;
  }

  // Wait for a child started with start(); its exit code (128+N for signal N).
  static int wait_for(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  // The points of a grid, from `latsim sweep ... --dry-run`.
  std::vector<Listed> dry_run(const std::vector<std::string>& args) {
    std::vector<std::string> a = args;
    a.push_back("--dry-run");
    const Result r = sweep(a);
    EXPECT_EQ(r.code, 0) << r;
    EXPECT_EQ(r.err, "") << r;
    std::vector<Listed> pts;
    for (const auto& l : lines_of(r.out)) {
      if (l.empty() || l[0] == '#') continue;
      const auto f = split(l, '\t');
      EXPECT_EQ(f.size(), 3u) << l;
      if (f.size() != 3) continue;
      Listed p;
      p.index = std::stoul(f[0]);
      p.id = f[1];
      p.overrides = split(f[2], ' ');
      pts.push_back(p);
    }
    return pts;
  }

  // Finished points in DIR/points: directories named by an id that hold the completion
  // marker COMPLETE (not the hidden temporary directory of a run still writing).
  static size_t finished_points(const fs::path& dir) {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir / "points", ec))
      n += e.path().filename().string()[0] != '.' && fs::is_regular_file(e.path() / "COMPLETE", ec);
    return n;
  }

  // Hidden (temporary) entries in DIR/points.
  static std::vector<std::string> hidden_points(const fs::path& dir) {
    std::vector<std::string> h;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir / "points", ec))
      if (e.path().filename().string()[0] == '.') h.push_back(e.path().filename().string());
    return h;
  }

  // The deterministic result files of a sweep directory: results.* and the plots.
  static std::map<std::string, std::string> result_files(const fs::path& dir) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("results.", 0) == 0 || e.path().extension() == ".svg")
        files[name] = slurp(e.path());
    }
    return files;
  }

  // Same result files, byte for byte.
  static void expect_same_results(const fs::path& a, const fs::path& b) {
    const auto fa = result_files(a), fb = result_files(b);
    std::set<std::string> na, nb;
    for (const auto& kv : fa) na.insert(kv.first);
    for (const auto& kv : fb) nb.insert(kv.first);
    EXPECT_EQ(na, nb) << a << " vs " << b;
    EXPECT_TRUE(na.count("results.csv") && na.count("results.json") && na.count("results.md"));
    for (const auto& [name, text] : fa) {
      auto it = fb.find(name);
      if (it == fb.end()) continue;
      EXPECT_TRUE(text == it->second)
          << name << " differs between " << a << " and " << b << "\n--- " << a << " ---\n"
          << text << "\n--- " << b << " ---\n"
          << it->second;
    }
  }

  fs::path dir_;
  fs::path async_out_, async_err_;
  int calls_ = 0;
};

}  // namespace sweep_test
