#include "tools/sweep/runner.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace latsim::sweep {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

const char* signal_name(int sig) {
  switch (sig) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGILL:
      return "SIGILL";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTERM:
      return "SIGTERM";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    default:
      return nullptr;
  }
}

std::string duration_text(double s) {
  if (s < 0 || !std::isfinite(s)) return "?";
  const long t = std::lround(s);
  if (t < 60) return fmt::format("{}s", t);
  if (t < 3600) return fmt::format("{}m{:02d}s", t / 60, t % 60);
  return fmt::format("{}h{:02d}m", t / 3600, (t / 60) % 60);
}

// What a child needs between fork and exec, prepared before fork (only async-signal-safe
// calls after it).
struct ExecData {
  std::vector<std::string> args;
  std::vector<char*> argv;
  std::string stderr_path;
};

pid_t spawn(ExecData& d, const sigset_t& child_mask, pid_t parent) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;  // parent (or -1)
  // Child.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
  ::sigprocmask(SIG_SETMASK, &child_mask, nullptr);
  const int in = ::open("/dev/null", O_RDONLY);
  const int out = ::open("/dev/null", O_WRONLY);
  const int err = ::open(d.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0 || err < 0) ::_exit(127);
  ::dup2(in, 0);
  ::dup2(out, 1);
  ::dup2(err, 2);
  ::execv(d.argv[0], d.argv.data());
  const char msg[] = "latsim: cannot execute the point's command\n";
  [[maybe_unused]] auto n = ::write(2, msg, sizeof msg - 1);
  ::_exit(127);
}

struct Running {
  size_t job;
  pid_t pid;
  Clock::time_point start;
  std::optional<Clock::time_point> deadline;
  bool timed_out = false;
};

class Progress {
 public:
  Progress(const RunnerOptions& o, size_t total) : o_(o), total_(total) {}
  void draw(size_t done, size_t failed, size_t running, size_t done_here, double elapsed,
            bool force = false) {
    if (!o_.progress) return;
    const auto now = Clock::now();
    if (!force && drawn_ && seconds(now - last_) < 0.25) return;
    last_ = now;
    drawn_ = true;
    std::string eta = "ETA ?";
    if (done_here > 0 && total_ > done)
      eta = "ETA " + duration_text(elapsed / double(done_here) * double(total_ - done));
    else if (total_ == done)
      eta = "done";
    const std::string line =
        fmt::format("{}: {}/{} {}, {} running, {} failed, {} elapsed, {}", o_.label, done, total_,
                    o_.noun, running, failed, duration_text(elapsed), eta);
    std::fprintf(stderr, "\r%s\033[K", line.c_str());
    std::fflush(stderr);
  }
  void clear() {
    if (!o_.progress || !drawn_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
  }
  void message(const std::string& text) {
    clear();
    std::fprintf(stderr, "%s\n", text.c_str());
    std::fflush(stderr);
  }

 private:
  const RunnerOptions& o_;
  size_t total_;
  bool drawn_ = false;
  Clock::time_point last_{};
};

}  // namespace

std::string JobResult::describe() const {
  switch (outcome) {
    case Outcome::Exited:
      return exit_code == 0 ? "finished" : fmt::format("exit status {}", exit_code);
    case Outcome::Signaled: {
      const char* name = signal_name(signal);
      return name ? fmt::format("killed by signal {} ({})", signal, name)
                  : fmt::format("killed by signal {}", signal);
    }
    case Outcome::TimedOut:
      return fmt::format("timed out after {:g} s", timeout_s);
    case Outcome::Interrupted:
      return "interrupted";
    case Outcome::NotStarted:
      return "could not be started";
  }
  return "?";
}

size_t default_jobs() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return size_t(CPU_COUNT(&set));
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? size_t(n) : 1;
}

std::string tail_of(const std::string& path, size_t max_lines, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > std::streamoff(max_bytes) ? size - max_bytes : 0;
  in.seekg(from);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (from > 0) {  // drop the partial first line
    const auto nl = text.find('\n');
    text = nl == std::string::npos ? "" : text.substr(nl + 1);
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  size_t lines = 0, pos = text.size();
  while (pos > 0) {
    const auto nl = text.rfind('\n', pos - 1);
    if (++lines == max_lines || nl == std::string::npos) {
      if (nl != std::string::npos && lines == max_lines) text = text.substr(nl + 1);
      break;
    }
    pos = nl;
  }
  return text;
}

bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

RunSummary run_jobs(const std::vector<Job>& jobs, const RunnerOptions& o, const OnDone& on_done) {
  RunSummary sum;
  const auto t0 = Clock::now();
  const size_t width = std::max<size_t>(1, o.jobs);
  const size_t total = o.done_before + jobs.size();

  sigset_t watched, old_mask;
  sigemptyset(&watched);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&watched, s);
  ::sigprocmask(SIG_BLOCK, &watched, &old_mask);
  const pid_t self = ::getpid();

  Progress progress(o, total);
  std::vector<Running> running;
  size_t next = 0, done_here = 0;
  int interrupt = 0;
  bool changed = true;
  Clock::time_point kill_at{};

  auto take_signals = [&](const timespec* wait) {
    timespec zero{0, 0};
    for (const timespec* t = wait;; t = &zero) {
      const int sig = ::sigtimedwait(&watched, nullptr, t);
      if (sig < 0) return;  // timeout (EAGAIN) or EINTR
      if (sig != SIGCHLD && !interrupt) {
        interrupt = sig;
        for (const auto& r : running) ::kill(r.pid, SIGTERM);
        kill_at = Clock::now() + std::chrono::seconds(5);
      }
    }
  };

  for (;;) {
    while (!interrupt && running.size() < width && next < jobs.size()) {
      const size_t j = next++;
      ExecData d;
      d.args = jobs[j].argv;
      for (auto& a : d.args) d.argv.push_back(a.data());
      d.argv.push_back(nullptr);
      d.stderr_path = jobs[j].stderr_path;
      const pid_t pid = d.args.empty() ? -1 : spawn(d, old_mask, self);
      if (pid < 0) {
        JobResult r;
        r.outcome = Outcome::NotStarted;
        r.exit_code = 127;
        std::ofstream(jobs[j].stderr_path)
            << "latsim: cannot start a child process: " << std::strerror(errno) << "\n";
        ++done_here;
        if (auto msg = on_done(j, r)) {
          ++sum.failed;
          progress.message(*msg);
        }
        continue;
      }
      Running r{j, pid, Clock::now(), std::nullopt};
      if (jobs[j].timeout_s > 0)
        r.deadline = r.start + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(jobs[j].timeout_s));
      running.push_back(r);
    }
    if (running.empty()) break;
    progress.draw(o.done_before + done_here, sum.failed, running.size(), done_here,
                  seconds(Clock::now() - t0), changed);
    changed = false;

    // Sleep until a child ends, a signal comes, a deadline passes or the progress line is
    // due; at most 200 ms, so nothing depends on SIGCHLD alone.
    auto now = Clock::now();
    double wait_s = 0.2;
    for (const auto& r : running)
      if (r.deadline && !r.timed_out) wait_s = std::min(wait_s, seconds(*r.deadline - now));
    wait_s = std::max(wait_s, 0.001);
    timespec ts{time_t(wait_s), long((wait_s - std::floor(wait_s)) * 1e9)};
    take_signals(&ts);

    now = Clock::now();
    for (auto& r : running) {
      if (!interrupt && r.deadline && !r.timed_out && now >= *r.deadline) {
        r.timed_out = true;
        ::kill(r.pid, SIGKILL);
      }
      if (interrupt && now >= kill_at) ::kill(r.pid, SIGKILL);
    }

    for (size_t i = 0; i < running.size();) {
      int status = 0;
      const pid_t w = ::waitpid(running[i].pid, &status, WNOHANG);
      if (w == 0 || (w < 0 && errno == EINTR)) {
        ++i;
        continue;
      }
      // A Ctrl-C reaches the children and us together: see ours before judging theirs.
      const timespec zero{0, 0};
      take_signals(&zero);
      const Running r = running[i];
      running.erase(running.begin() + long(i));
      JobResult res;
      res.pid = r.pid;
      res.timeout_s = jobs[r.job].timeout_s;
      res.wall_s = seconds(Clock::now() - r.start);
      if (w < 0) {
        res.outcome = Outcome::NotStarted;
        res.exit_code = 127;
      } else if (r.timed_out) {
        res.outcome = Outcome::TimedOut;
      } else if (WIFEXITED(status)) {
        res.outcome = Outcome::Exited;
        res.exit_code = WEXITSTATUS(status);
      } else {
        res.outcome = Outcome::Signaled;
        res.signal = WTERMSIG(status);
      }
      // Stopped by our own interruption (or by the terminal's Ctrl-C that also hit us):
      // not a result of the job, so not reported.
      if (interrupt && !res.ok()) res.outcome = Outcome::Interrupted;
      if (res.outcome == Outcome::Interrupted) {
        on_done(r.job, res);
        continue;
      }
      ++done_here;
      ++sum.finished;
      if (auto msg = on_done(r.job, res)) {
        ++sum.failed;
        progress.message(*msg);
      }
      changed = true;  // redrawn once the next job has started
    }
  }
  progress.clear();
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  sum.signal = interrupt;
  sum.wall_s = seconds(Clock::now() - t0);
  return sum;
}

}  // namespace latsim::sweep
