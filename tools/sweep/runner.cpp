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
  Progress(const RunnerOptions& o, size_t total) : o_(o), total_(total), last_(Clock::now()) {}
  void draw(size_t done, size_t failed, size_t running, size_t done_here, double elapsed,
            bool force = false) {
    if (!o_.progress) return;
    const auto now = Clock::now();
    if (o_.line_every_s) {
      if (seconds(now - last_) < *o_.line_every_s) return;
    } else if (!force && drawn_ && seconds(now - last_) < 0.25) {
      return;
    }
    last_ = now;
    std::string eta = "ETA ?";
    if (done_here > 0 && total_ > done)
      eta = "ETA " + duration_text(elapsed / double(done_here) * double(total_ - done));
    else if (total_ == done)
      eta = "done";
    const std::string line =
        fmt::format("{}: {}/{} {}, {} running, {} failed, {} elapsed, {}", o_.label, done, total_,
                    o_.noun, running, failed, duration_text(elapsed), eta);
    if (o_.line_every_s) {
      std::fprintf(stderr, "%s\n", line.c_str());
    } else {
      drawn_ = true;
      std::fprintf(stderr, "\r%s\033[K", line.c_str());
    }
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
  bool drawn_ = false;  // a redrawn line is on the terminal
  Clock::time_point last_;
};

// One run_jobs call: starts jobs up to the width, watches deadlines and signals, reaps
// children and reports each to on_done.
class Pool {
 public:
  Pool(const std::vector<Job>& jobs, const RunnerOptions& o, const OnDone& on_done)
      : jobs_(jobs),
        o_(o),
        on_done_(on_done),
        t0_(Clock::now()),
        width_(std::max<size_t>(1, o.jobs)),
        progress_(o, o.done_before + jobs.size()) {}

  RunSummary run() {
    sigemptyset(&watched_);
    for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&watched_, s);
    ::sigprocmask(SIG_BLOCK, &watched_, &old_mask_);
    for (;;) {
      while (!interrupt_ && running_.size() < width_ && next_ < jobs_.size()) start(next_++);
      if (running_.empty()) break;
      progress_.draw(o_.done_before + done_here_, sum_.failed, running_.size(), done_here_,
                     seconds(Clock::now() - t0_), changed_);
      changed_ = false;
      sleep();
      enforce_deadlines();
      reap();
    }
    progress_.clear();
    ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
    sum_.signal = interrupt_;
    sum_.wall_s = seconds(Clock::now() - t0_);
    return sum_;
  }

 private:
  // Take pending signals, waiting at most `wait` for the first; a stop signal interrupts.
  void take_signals(const timespec* wait) {
    timespec zero{0, 0};
    for (const timespec* t = wait;; t = &zero) {
      const int sig = ::sigtimedwait(&watched_, nullptr, t);
      if (sig < 0) return;  // timeout (EAGAIN) or EINTR
      if (sig != SIGCHLD && !interrupt_) {
        interrupt_ = sig;
        for (const auto& r : running_) ::kill(r.pid, SIGTERM);
        kill_at_ = Clock::now() + std::chrono::seconds(5);
      }
    }
  }

  void start(size_t j) {
    ExecData d;
    d.args = jobs_[j].argv;
    for (auto& a : d.args) d.argv.push_back(a.data());
    d.argv.push_back(nullptr);
    d.stderr_path = jobs_[j].stderr_path;
    const pid_t pid = d.args.empty() ? -1 : spawn(d, old_mask_, self_);
    if (pid < 0) {
      JobResult r;
      r.outcome = Outcome::NotStarted;
      r.exit_code = 127;
      std::ofstream(jobs_[j].stderr_path)
          << "latsim: cannot start a child process: " << std::strerror(errno) << "\n";
      done(j, r);
      return;
    }
    Running r{j, pid, Clock::now(), std::nullopt};
    if (jobs_[j].timeout_s > 0)
      r.deadline = r.start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(jobs_[j].timeout_s));
    running_.push_back(r);
  }

  // Sleep until a child ends, a signal comes, a deadline passes or the progress line is
  // due; at most 200 ms, so nothing depends on SIGCHLD alone.
  void sleep() {
    const auto now = Clock::now();
    double wait_s = 0.2;
    for (const auto& r : running_)
      if (r.deadline && !r.timed_out) wait_s = std::min(wait_s, seconds(*r.deadline - now));
    wait_s = std::max(wait_s, 0.001);
    timespec ts{time_t(wait_s), long((wait_s - std::floor(wait_s)) * 1e9)};
    take_signals(&ts);
  }

  void enforce_deadlines() {
    const auto now = Clock::now();
    for (auto& r : running_) {
      if (!interrupt_ && r.deadline && !r.timed_out && now >= *r.deadline) {
        r.timed_out = true;
        ::kill(r.pid, SIGKILL);
      }
      if (interrupt_ && now >= kill_at_) ::kill(r.pid, SIGKILL);
    }
  }

  void reap() {
    for (size_t i = 0; i < running_.size();) {
      int status = 0;
      const pid_t w = ::waitpid(running_[i].pid, &status, WNOHANG);
      if (w == 0 || (w < 0 && errno == EINTR)) {
        ++i;
        continue;
      }
      // A Ctrl-C reaches the children and us together: see ours before judging theirs.
      const timespec zero{0, 0};
      take_signals(&zero);
      const Running r = running_[i];
      running_.erase(running_.begin() + long(i));
      ended(r, w, status);
    }
  }

  // How a reaped child (waitpid gave w and status) went.
  JobResult result_of(const Running& r, pid_t w, int status) const {
    JobResult res;
    res.pid = r.pid;
    res.timeout_s = jobs_[r.job].timeout_s;
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
    if (interrupt_ && !res.ok()) res.outcome = Outcome::Interrupted;
    return res;
  }

  void ended(const Running& r, pid_t w, int status) {
    const JobResult res = result_of(r, w, status);
    if (res.outcome == Outcome::Interrupted) {
      on_done_(r.job, res);
      return;
    }
    ++sum_.finished;
    done(r.job, res);
    changed_ = true;  // redrawn once the next job has started
  }

  // A job counts as done: tell on_done, and print its failure message if it has one.
  void done(size_t job, const JobResult& res) {
    ++done_here_;
    if (auto msg = on_done_(job, res)) {
      ++sum_.failed;
      progress_.message(*msg);
    }
  }

  const std::vector<Job>& jobs_;
  const RunnerOptions& o_;
  const OnDone& on_done_;
  const Clock::time_point t0_;
  const size_t width_;
  const pid_t self_ = ::getpid();
  Progress progress_;
  sigset_t watched_{}, old_mask_{};
  RunSummary sum_;
  std::vector<Running> running_;
  size_t next_ = 0, done_here_ = 0;
  int interrupt_ = 0;
  bool changed_ = true;
  Clock::time_point kill_at_{};
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

RunSummary run_jobs(const std::vector<Job>& jobs, const RunnerOptions& o, const OnDone& on_done) {
  return Pool(jobs, o, on_done).run();
}

}  // namespace latsim::sweep
