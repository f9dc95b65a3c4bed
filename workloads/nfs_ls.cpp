// `while ls; do ls /bin; done` in a telnet session on a machine whose root is mounted over
// NFS (seed 002): each ls is a fork and exec, path walks through the dcache (__d_lookup
// under rcu_read_lock), NFS RPCs over UDP (the request sent through the NIC, the task
// asleep until the server's reply is received: netif_receive_skb and ip_local_deliver_finish
// under rcu_read_lock), its listing written back to the telnet client, and the exit's
// files freed through call_rcu. With root: flash, the same loop finds everything in the
// dcache and page cache: no RPC, no network.
//
// The far end (the NFS server) is the NIC's packet source: replies arrive as a stream at
// replies_per_s (assumption: the loop's request/reply coupling is not modelled; the task
// reads one reply per RPC, so the stream paces it).
#include <memory>
#include "kernel_sim/drivers/net/rtl8139.h"
#include "kernel_sim/net/dev.h"
#include "workloads/registry.h"

namespace latsim::workloads {
namespace {

using params::integer;

struct NfsLsParams {
  std::string root = "nfs";      // nfs | flash
  int rpcs_per_ls = 4;           // assumption: GETATTRs of the binary, libs and the directory
  double replies_per_s = 1500;   // assumption: the server's replies the loop draws
  int reply_bytes = 1024;        // assumption: READDIR/GETATTR replies, one frame each
  int request_bytes = 140;       // RPC header + NFSv3 GETATTR/LOOKUP arguments
  int lookups_per_ls = 30;       // assumption: path components walked (ld.so, libs, argv)
  int output_bytes = 1500;       // `ls /bin` listing written to the telnet client
  int fork_exec_kcycles = 1000;  // CAL CPU and memory: lmbench fork 0.25 + exec 1.1 ms at 790 MHz
  int ls_user_kcycles = 200;     // assumption: ls itself (sorting, formatting)
  int rcu_frees_per_ls = 8;      // files and dentries freed by call_rcu (file_free_rcu)
};
using P = NfsLsParams;

class NfsLs : public Program {
 public:
  NfsLs(std::string name, P p) : name_(std::move(name)), p_(std::move(p)) {}
  const std::string& name() const override { return name_; }
  void start(Kernel& k) override {
    k.create_task(
        "ls", [this, &k] { loop(k); }, Policy::Normal, 0);
  }
  nlohmann::json metrics(Kernel&, double) const override {
    return {{"ls_runs", runs_}, {"rpcs", rpcs_}};
  }

 private:
  void loop(Kernel& k) {
    const bool nfs = p_.root == "nfs";
    if (nfs) k.nic();  // eth0 up: the root is mounted over it
    for (;;) {
      one_ls(k, nfs);
      k.resume_userspace("ret_from_fork");
    }
  }

  void one_ls(Kernel& k, bool nfs) {
    k.fn("do_fork", "sys_clone", uint64_t(p_.fork_exec_kcycles) * 500, 40);
    for (int i = 0; i < p_.lookups_per_ls; ++i) {
      k.fn("link_path_walk", "path_lookup", 200, 2);
      k.rcu_read_lock("__d_lookup");  // fs/dcache.c __d_lookup: the hash chain under RCU
      k.fn("__d_lookup", "do_lookup", 300, 4);
      k.rcu_read_unlock("__d_lookup");
    }
    k.fn("do_execve", "sys_execve", uint64_t(p_.fork_exec_kcycles) * 500, 60);
    if (nfs)
      for (int i = 0; i < p_.rpcs_per_ls; ++i) rpc(k);
    k.user_exec(uint64_t(p_.ls_user_kcycles) * 1000, 40);
    if (nfs) {  // the listing goes back over telnet (TCP on eth0)
      k.fn("tty_write", "sys_write", 2000, 10);
      k.net().send(uint32_t(p_.output_bytes));
    } else {
      k.fn("tty_write", "sys_write", 2000, 10);
    }
    for (int i = 0; i < p_.rcu_frees_per_ls; ++i)
      k.call_rcu([&k] { k.fn("file_free_rcu", "rcu_process_callbacks", 150, 2); }, "fput");
    runs_++;
  }

  // rpc_call_sync: xprt_transmit (udp_sendmsg through the NIC), sleep until the reply
  // (xs_udp_data_ready wakes the task), decode it.
  void rpc(Kernel& k) {
    k.fn("rpc_call_sync", "nfs3_rpc_wrapper", 1500, 12);
    k.net().send(uint32_t(p_.request_bytes));
    (void)k.net().recv();
    k.fn("nfs3_xdr_attrstat", "call_decode", 800, 6);
    rpcs_++;
  }

  std::string name_;
  P p_;
  uint64_t runs_ = 0, rpcs_ = 0;
};

std::optional<Arrivals> nfs_arrivals(const Config& c, double duration_s) {
  const auto& p = c.as<P>();
  if (p.root != "nfs") return std::nullopt;
  return Arrivals{p.replies_per_s, uint32_t(p.reply_bytes), 0.0, duration_s};
}

params::Table<Config> nfs_ls_keys() {
  using params::bind;
  using params::number;
  return {
      name_key(),
      param(bind(params::choice("root", {"nfs", "flash"},
                                "the root file system: nfs (lookups and reads are RPCs over the "
                                "NIC) or flash (all in the dcache and page cache)"),
                 &P::root)),
      param(bind(integer("rpcs_per_ls", 0, 1000, "", "NFS RPCs per ls run"), &P::rpcs_per_ls)),
      param(bind(number("replies_per_s", 1, 100000, "1/s",
                        "the server's reply frames arriving (the stream the loop reads)"),
                 &P::replies_per_s)),
      param(bind(integer("reply_bytes", 18, 1472, "bytes", "UDP payload of one RPC reply"),
                 &P::reply_bytes)),
      param(bind(integer("request_bytes", 18, 1472, "bytes", "UDP payload of one RPC call"),
                 &P::request_bytes)),
      param(bind(integer("lookups_per_ls", 0, 10000, "", "dcache path components per ls run"),
                 &P::lookups_per_ls)),
      param(bind(integer("output_bytes", 0, 65536, "bytes", "listing written to the terminal"),
                 &P::output_bytes)),
      param(bind(integer("fork_exec_kcycles", 0, 100000, "kcycles",
                         "kernel work of fork + exec + exit of one ls"),
                 &P::fork_exec_kcycles)),
      param(bind(integer("ls_user_kcycles", 0, 100000, "kcycles", "ls's own user-mode work"),
                 &P::ls_user_kcycles)),
      param(bind(integer("rcu_frees_per_ls", 0, 1000, "",
                         "objects freed through call_rcu per ls run (file_free_rcu)"),
                 &P::rcu_frees_per_ls)),
  };
}

const Registration kNfsLs{
    {"nfs_ls",
     "while ls; do ls /bin; done on an NFS (or flash) root: fork/exec, dcache walks under "
     "RCU, RPCs over UDP through the NIC, the listing sent to the telnet client",
     nfs_ls_keys(), [] { return P{}; },
     [](const Config& c, const Board&) { return std::make_unique<NfsLs>(c.name, c.as<P>()); },
     nullptr, nfs_arrivals, nullptr}};

}  // namespace
}  // namespace latsim::workloads
