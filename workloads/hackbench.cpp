// `while ./hackbench N; do ./calibrator 400 32M cali; sleep S; done` (seed 002): hackbench
// forks N groups of `fds` receivers and `fds` senders over AF_UNIX socketpairs; each sender
// writes `loops` 100-byte messages to every receiver of its group, each receiver reads all
// of them; then calibrator walks a 32 MB array (cache-missing loads), then the loop sleeps.
// Unix-socket sends and receives take no RCU read section (2.6.24 net/unix/af_unix.c).
#include <memory>
#include <vector>
#include "workloads/registry.h"

namespace latsim::workloads {
namespace {

using params::integer;

struct HackbenchParams {
  int groups = 10;            // hackbench 10
  int fds = 20;               // hackbench.c num_fds: senders and receivers per group
  int loops = 100;            // hackbench.c loops: messages per sender per receiver
  int message_bytes = 100;    // hackbench.c DATASIZE
  int socket_messages = 100;  // assumption: messages a socketpair buffers before a write blocks
  int calibrator_ms = 2000;   // assumption: calibrator 400 32M's run on a 400 MHz board
  int sleep_s = 30;           // sleep 30
};
using P = HackbenchParams;

// One receiver's socket: messages queued, and who sleeps on it.
struct Socket {
  int queued = 0;
  Task* reader = nullptr;
  std::vector<Task*> writers;
};

class Hackbench : public Program {
 public:
  Hackbench(std::string name, P p) : name_(std::move(name)), p_(std::move(p)) {}
  const std::string& name() const override { return name_; }
  void start(Kernel& k) override {
    k.create_task(
        "sh", [this, &k] { loop(k); }, Policy::Normal, 0);
  }
  nlohmann::json metrics(Kernel&, double) const override {
    return {{"runs", runs_}, {"messages", messages_}};
  }

 private:
  void loop(Kernel& k) {
    for (;;) {
      run(k);
      runs_++;
      const uint64_t per_ms = uint64_t(k.this_cpu().mhz() * 1000);
      for (int ms = 0; ms < p_.calibrator_ms; ++ms) k.user_exec(per_ms / 4, per_ms / 400);
      k.set_current_state(TASK_INTERRUPTIBLE);
      k.schedule_timeout(uint64_t(p_.sleep_s) * uint64_t(k.params().hz), "do_nanosleep");
      k.set_current_state(TASK_RUNNING);
    }
  }

  // hackbench: fork every group's tasks, wait for all of them.
  void run(Kernel& k) {
    const int groups = p_.groups, fds = p_.fds;
    auto sockets = std::make_shared<std::vector<Socket>>(size_t(groups * fds));
    auto left = std::make_shared<int>(2 * groups * fds);
    Task* parent = &k.current();
    for (int g = 0; g < groups; ++g) {
      for (int r = 0; r < fds; ++r)
        spawn(k, parent, left, [this, &k, sockets, g, r, fds] {
          receiver(k, (*sockets)[size_t(g * fds + r)], fds * p_.loops);
        });
      for (int s = 0; s < fds; ++s)
        spawn(k, parent, left, [this, &k, sockets, g, fds] { sender(k, *sockets, g * fds, fds); });
    }
    for (;;) {  // wait(): every child reaped
      k.set_current_state(TASK_INTERRUPTIBLE);
      if (*left == 0) break;
      k.schedule("sys_wait4");
    }
    k.set_current_state(TASK_RUNNING);
  }

  void spawn(Kernel& k, Task* parent, std::shared_ptr<int> left, std::function<void()> body) {
    k.fn("do_fork", "sys_clone", 40000, 40);
    k.create_task(
        "hackbench",
        [&k, parent, left, body] {
          k.current().reaped = true;  // its parent waits for it
          body();
          k.current().on_exit = [&k, parent, left] {
            if (--*left == 0) k.try_to_wake_up(parent, "do_notify_parent");
          };
        },
        Policy::Normal, 0);
  }

  static void wake(Kernel& k, Task*& t, const char* parent) {
    if (!t) return;
    Task* w = t;
    t = nullptr;
    k.try_to_wake_up(w, parent);
  }

  // unix_stream_sendmsg to each receiver of the group in turn, `loops` rounds.
  void sender(Kernel& k, std::vector<Socket>& socks, int first, int fds) {
    const uint32_t bytes = uint32_t(p_.message_bytes);
    for (int l = 0; l < p_.loops; ++l)
      for (int j = 0; j < fds; ++j) {
        Socket& s = socks[size_t(first + j)];
        k.user_exec(300, 1);
        k.fn("sys_write", "syscall_call", 200, 2);
        while (s.queued >= p_.socket_messages) {  // sock_alloc_send_skb: sndbuf full
          k.set_current_state(TASK_INTERRUPTIBLE);
          s.writers.push_back(&k.current());
          k.schedule("sock_alloc_send_skb");
        }
        k.set_current_state(TASK_RUNNING);
        k.fn("unix_stream_sendmsg", "sock_aio_write", 1200, 8, bytes / 32);
        s.queued++;
        messages_++;
        wake(k, s.reader, "sock_def_readable");
        k.resume_userspace("syscall_exit");
      }
    k.fn("do_exit", "do_group_exit", 20000, 30);
  }

  void receiver(Kernel& k, Socket& s, int total) {
    for (int i = 0; i < total; ++i) {
      k.user_exec(300, 1);
      k.fn("sys_read", "syscall_call", 200, 2);
      while (s.queued == 0) {
        k.set_current_state(TASK_INTERRUPTIBLE);
        s.reader = &k.current();
        k.schedule("unix_stream_data_wait");
      }
      k.set_current_state(TASK_RUNNING);
      s.reader = nullptr;
      k.fn("unix_stream_recvmsg", "sock_aio_read", 1200, 8, uint64_t(p_.message_bytes) / 32);
      s.queued--;
      auto writers = std::move(s.writers);
      s.writers.clear();
      for (Task* w : writers) k.try_to_wake_up(w, "sock_def_write_space");
      k.resume_userspace("syscall_exit");
    }
    k.fn("do_exit", "do_group_exit", 20000, 30);
  }

  std::string name_;
  P p_;
  uint64_t runs_ = 0, messages_ = 0;
};

params::Table<Config> hackbench_keys() {
  using params::bind;
  return {
      name_key(),
      param(bind(integer("groups", 1, 100, "", "hackbench N: groups of senders and receivers"),
                 &P::groups)),
      param(bind(integer("fds", 1, 100, "", "senders and receivers per group (num_fds)"), &P::fds)),
      param(bind(integer("loops", 1, 100000, "", "messages per sender per receiver"), &P::loops)),
      param(bind(integer("message_bytes", 1, 65536, "bytes", "bytes per message (DATASIZE)"),
                 &P::message_bytes)),
      param(bind(integer("socket_messages", 1, 100000, "",
                         "messages a socket buffers before its sender blocks"),
                 &P::socket_messages)),
      param(bind(integer("calibrator_ms", 0, 600000, "ms",
                         "calibrator's run between hackbench runs (cache-missing loads)"),
                 &P::calibrator_ms)),
      param(bind(integer("sleep_s", 0, 3600, "s", "sleep after calibrator"), &P::sleep_s)),
  };
}

const Registration kHackbench{
    {"hackbench",
     "while hackbench N; do calibrator; sleep S; done: groups of senders and receivers over "
     "AF_UNIX sockets, then a cache-thrashing walk, then a sleep",
     hackbench_keys(), [] { return P{}; },
     [](const Config& c, const Board&) { return std::make_unique<Hackbench>(c.name, c.as<P>()); },
     nullptr, nullptr, nullptr}};

}  // namespace
}  // namespace latsim::workloads
