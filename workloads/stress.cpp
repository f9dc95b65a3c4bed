#include "workloads/stress.h"
#include <cmath>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/drivers/net/rtl8139.h"
#include "kernel_sim/net/dev.h"
#include "workloads/registry.h"

namespace latsim::workloads {
namespace {

using params::integer;
using P = StressLoad::Params;

params::Key<Config> nice_key() {
  return param(params::bind(integer("nice", -20, 19, "", "nice value"), &P::nice));
}
params::Key<Config> rate_key() {
  return param(params::bind(params::number("packets_per_s", 1, 200000, "1/s", "packet rate"),
                            &P::packets_per_s));
}
params::Key<Config> payload_key() {
  return param(params::bind(integer("packet_bytes", 18, 1472, "bytes", "UDP payload per packet"),
                            &P::bytes));
}
params::Key<Config> block_key(const char* doc) {
  return param(params::bind(integer("block_kb", 4, 1024, "KiB", doc), &P::block_kb));
}

// A stress load of one kind, as a workload of its own for the whole run.
Kind stress_kind(std::string kind, std::string doc, params::Table<Config> keys) {
  keys.insert(keys.begin(), name_key());
  return {kind, std::move(doc), std::move(keys),
          [kind] {
            P p;
            p.kind = kind;
            return p;
          },
          [](const Config& c, const Board&) {
            return std::make_unique<StressLoad>(c.name, c.as<P>());
          }};
}

// net_in: the far end of the cable sends at the load's rate for the whole run.
std::optional<Arrivals> net_in_arrivals(const Config& c, double duration_s) {
  const auto& p = c.as<P>();
  return Arrivals{p.packets_per_s, p.bytes, 0.0, duration_s};
}

Kind net_in_kind() {
  Kind k = stress_kind("net_in",
                       "UDP datagrams arriving at the RTL8139 at a packet rate, read by a receiver",
                       {rate_key(), payload_key()});
  k.arrivals = net_in_arrivals;
  return k;
}

const Registration kCpuBurner{
    stress_kind("cpu_burner", "non-RT task spinning in user mode", {nice_key()})};
const Registration kProcRead{
    stress_kind("proc_read", "cat /proc/<pid>/stat in a loop", {nice_key()})};
const Registration kNetOut{stress_kind("net_out",
                                       "UDP datagrams sent through the RTL8139 at a packet rate",
                                       {rate_key(), payload_key()})};
const Registration kNetIn{net_in_kind()};
const Registration kDiskWrite{stress_kind(
    "disk_write", "head -c N /dev/zero > tmpfile: page-cache writes written back by pdflush",
    {file_mb_key<P>("file size"), block_key("write(2) size")})};
const Registration kDiskCopy{
    stress_kind("disk_copy", "cp tmpfile tmpfile2: reads of one file, writes of another",
                {file_mb_key<P>("file size"), block_key("read(2)/write(2) size")})};

}  // namespace

bool enter_window(Kernel& k, const Window& w) {
  if (k.now() >= w.stop) return false;
  if (k.now() < w.start) {
    const int cpu = k.smp_processor_id();
    const double ticks = std::ceil((w.start - k.tick_time(cpu, 0)) / k.tick_period());
    k.sleep_until_tick(cpu, uint64_t(ticks), "do_nanosleep");
  }
  return k.now() < w.stop;
}

void sleep_forever(Kernel& k) { k.sys_pause(); }

void cpu_burn(Kernel& k, const Window& w, uint64_t misses_per_ms) {
  const uint64_t per_ms = uint64_t(k.this_cpu().mhz() * 1000);
  while (k.now() < w.stop) k.user_exec(per_ms, misses_per_ms);
}

// `cat /proc/*/stat` in a loop: path walk, the task list under tasklist_lock,
// sprintf into a page, copy to user.
void proc_read(Kernel& k, const Window& w, Spinlock& tasklist_lock) {
  while (k.now() < w.stop) {
    k.user_exec(20000, 10);  // the shell loop
    k.fn("sys_open", "syscall_call", 3000, 20);
    k.fn("proc_pid_lookup", "proc_root_lookup", 800, 6);
    k.fn("sys_read", "syscall_call", 200, 2);
    k.spin_lock(tasklist_lock, "proc_pid_stat");
    k.fn("proc_pid_stat", "proc_info_read", 6000, 16);  // task_mem, sprintf of 40 fields
    k.spin_unlock(tasklist_lock, {"proc_pid_stat", "unlock"});
    k.fn("__copy_to_user_ll", "proc_info_read", 300, 2);
    k.fn("sys_close", "syscall_call", 400, 4);
  }
}

void net_out(Kernel& k, const Window& w, double packets_per_s, uint32_t bytes) {
  NetStack& net = k.net();
  k.nic();
  const double per_tick = packets_per_s / k.params().hz;
  double owed = 0;
  while (k.now() < w.stop) {
    owed += per_tick;
    for (; owed >= 1.0; owed -= 1.0) {
      k.user_exec(2000, 4);
      net.send(bytes);
    }
    const int cpu = k.smp_processor_id();
    k.sleep_until_tick(cpu, k.local_ticks(cpu) + 1, "do_nanosleep");
  }
}

void net_in(Kernel& k, const Window& w) {
  NetStack& net = k.net();
  while (k.now() < w.stop) {
    (void)net.recv();
    k.user_exec(1500, 4);  // the receiver's loop around recvfrom (data discarded)
  }
}

void disk_write(Kernel& k, const Window& w, int block_kb) {
  BlockLayer& b = k.block();
  const uint64_t per_block = uint64_t(block_kb) / 4;
  while (k.now() < w.stop) {
    for (uint64_t p = 0; p < b.file_pages() && k.now() < w.stop; ++p) {
      if (p % per_block == 0) {
        k.user_exec(3000, 4);  // head's loop around read(/dev/zero) and write()
        k.fn("sys_read", "syscall_call", 200, 2);
        k.fn("__clear_user", "read_zero", 1100, 2, 0);
        k.fn("sys_write", "syscall_call", 200, 2);
      }
      b.write_page(kReadFile, p, "generic_file_write");  // tmpfile, which cp and cat read
      k.cond_resched("generic_file_buffered_write");
    }
  }
}

void disk_copy(Kernel& k, const Window& w, int block_kb) {
  BlockLayer& b = k.block();
  const uint64_t per_block = uint64_t(block_kb) / 4;
  const uint64_t pages = std::min(b.file_pages(), b.write_file_pages());
  while (k.now() < w.stop) {
    for (uint64_t p = 0; p < pages && k.now() < w.stop; ++p) {
      if (p % per_block == 0) {
        k.user_exec(3000, 4);  // cp's loop
        k.fn("sys_read", "syscall_call", 200, 2);
      }
      b.read_page(p, "do_generic_mapping_read");
      if (p % per_block == per_block - 1) k.fn("sys_write", "syscall_call", 200, 2);
      b.write_page(p, "generic_file_write");
      k.cond_resched("generic_file_buffered_write");
    }
  }
}

void disk_read(Kernel& k, const Window& w, int block_kb) {
  BlockLayer& b = k.block();
  const uint64_t per_block = uint64_t(block_kb) / 4;
  while (k.now() < w.stop) {
    for (uint64_t p = 0; p < b.file_pages() && k.now() < w.stop; ++p) {
      if (p % per_block == 0) {
        k.user_exec(3000, 4);
        k.fn("sys_read", "syscall_call", 200, 2);
        k.fn("vfs_read", "sys_read", 120, 1);
      }
      b.read_page(p, "do_generic_mapping_read");
      if (p % per_block == per_block - 1) k.fn("sys_write", "syscall_call", 300, 2);
      k.cond_resched("do_generic_mapping_read");
    }
  }
}

void start_stress(Kernel& k, const std::string& kind, const StressLoad::Params& p,
                  Spinlock& tasklist_lock) {
  const Window w = p.window;
  const uint64_t pages = uint64_t(p.file_mb) * 1000000 / 4096;
  auto body = [&k, w](auto loop) {
    return [&k, w, loop] {
      if (enter_window(k, w)) loop();
      sleep_forever(k);
    };
  };
  const int bkb = p.block_kb;
  if (kind == "cpu_burner") {
    k.create_task("burn", body([&k, w] { cpu_burn(k, w, 20); }), Policy::Normal, p.nice);
  } else if (kind == "proc_read") {
    Spinlock* l = &tasklist_lock;
    k.create_task("cat", body([&k, w, l] { proc_read(k, w, *l); }), Policy::Normal, p.nice);
  } else if (kind == "net_out") {
    const double pps = p.packets_per_s;
    const uint32_t bytes = p.bytes;
    k.create_task("netout", body([&k, w, pps, bytes] { net_out(k, w, pps, bytes); }),
                  Policy::Normal, p.nice);
  } else if (kind == "net_in") {
    k.create_task("netin", body([&k, w] {
                    k.nic();  // eth0 up before the first frame is due
                    net_in(k, w);
                  }),
                  Policy::Normal, p.nice);
  } else if (kind == "disk_write") {
    if (!k.block().file_pages()) k.block().setup_file(pages, kReadFileLba);
    k.block().start_pdflush();
    k.create_task("head", body([&k, w, bkb] { disk_write(k, w, bkb); }), Policy::Normal, p.nice);
  } else if (kind == "disk_copy") {
    if (!k.block().file_pages()) k.block().setup_file(pages, kReadFileLba);
    if (!k.block().write_file_pages()) k.block().setup_write_file(pages, kWriteFileLba);
    k.create_task("cp", body([&k, w, bkb] { disk_copy(k, w, bkb); }), Policy::Normal, p.nice);
  } else if (kind == "disk_read") {
    if (!k.block().file_pages()) k.block().setup_file(pages, kReadFileLba);
    k.create_task("cat", body([&k, w, bkb] { disk_read(k, w, bkb); }), Policy::Normal, p.nice);
  }
}

void StressLoad::start(Kernel& k) { start_stress(k, p_.kind, p_, tasklist_lock_); }

}  // namespace latsim::workloads
