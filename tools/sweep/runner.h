#pragma once
// Runs jobs as child processes, up to N at a time (SystemC elaborates once per process, so
// every sweep point or check case is its own process). Each child gets stdin and stdout
// from /dev/null and its stderr in a file; it may be given a time limit; it dies with its
// parent (PR_SET_PDEATHSIG), so a killed runner leaves no orphan still writing.
//
// SIGINT, SIGTERM and SIGHUP stop the runner: no new job starts, running children get
// SIGTERM (SIGKILL after 5 s), and run_jobs returns the signal, which the caller should
// turn into its exit status (128 + signal).
#include <sys/types.h>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace latsim::sweep {

struct Job {
  std::vector<std::string> argv;  // argv[0] is the program, e.g. /proc/self/exe
  std::string stderr_path;        // created or truncated; the child's stderr
  double timeout_s = 0;           // 0: no limit; past it the child gets SIGKILL
};

enum class Outcome {
  Exited,       // exited on its own (exit_code says how)
  Signaled,     // killed by a signal it did not get from us
  TimedOut,     // killed by us at its time limit
  Interrupted,  // stopped because the runner was interrupted
  NotStarted,   // fork or exec failed (exit_code 127 and a message in stderr_path)
};

struct JobResult {
  Outcome outcome = Outcome::NotStarted;
  int exit_code = 0;  // Exited
  int signal = 0;     // Signaled
  pid_t pid = 0;
  double timeout_s = 0;
  double wall_s = 0;
  bool ok() const { return outcome == Outcome::Exited && exit_code == 0; }
  // "exit status 2", "killed by signal 11 (SIGSEGV)", "timed out after 5 s", ...
  std::string describe() const;
};

struct RunnerOptions {
  size_t jobs = 1;        // children at a time
  bool progress = false;  // show progress on stderr
  // Without a value the progress line is redrawn in place (a terminal); with one, a plain
  // line is printed every that many seconds (a batch log, which a redrawn line would fill).
  std::optional<double> line_every_s;
  std::string label = "run";  // progress line prefix
  std::string noun = "jobs";  // "7/15 points"
  size_t done_before = 0;     // counted as done in the progress line (already finished)
};

// Called in the parent as each job ends (index into `jobs`). Returns nullopt when the job
// counts as done, or a message saying why it failed, printed on stderr as it happens.
// Also called for Interrupted jobs (to clean up after them); the return value is then
// ignored.
using OnDone = std::function<std::optional<std::string>(size_t, const JobResult&)>;

struct RunSummary {
  int signal = 0;  // the signal that interrupted the run, 0 when every job ran
  size_t finished = 0, failed = 0;
  double wall_s = 0;
};

RunSummary run_jobs(const std::vector<Job>& jobs, const RunnerOptions& o, const OnDone& on_done);

// CPUs this process may run on (sched_getaffinity, so a batch system's cpuset counts).
size_t default_jobs();

// The last `max_lines` lines of a file (at most max_bytes from its end), "" if unreadable.
std::string tail_of(const std::string& path, size_t max_lines = 20, size_t max_bytes = 4096);

}  // namespace latsim::sweep
