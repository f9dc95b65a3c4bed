#pragma once
// dbench N (Andrew Tridgell's NetBench emulation): N client processes replaying a
// file-server mix of creates, writes, reads, stats, directory scans and unlinks
// against the local file system (ReiserFS on seed 001's machine), each op through
// the 2.4 VFS paths that take the big kernel lock.
#include <vector>
#include "workloads/program.h"

namespace latsim::workloads {

struct DbenchParams {
  int clients = 16;
  // Assumptions (no per-op trace of dbench 1.x at hand): shares of the NetBench
  // client file's ops, sizes of its ReadX/WriteX, and dbench's own user time per op.
  double p_create = 0.10, p_open = 0.08, p_close = 0.18, p_read = 0.30, p_write = 0.13,
         p_stat = 0.13, p_readdir = 0.05;  // the rest: unlink
  uint32_t max_io_kb = 64;                 // ReadX/WriteX up to 64 KiB
  uint32_t files_per_client = 32;          // files each client keeps open or on disk
  uint32_t max_file_pages = 256;           // files grow to 1 MiB, then are rewritten
  uint64_t user_cycles_per_op = 15000;     // dbench parsing its load file, 1 GHz class
  // dbench 1.x fileio.c `static char buf[70000]`: ReadX/WriteX go through it, and each of
  // its pages faults in (do_anonymous_page, clear_page) the first time an op reaches it.
  // 0: the model's earlier clients, whose buffer is already mapped.
  uint32_t buffer_bytes = 0;
};

class Dbench : public Program {
 public:
  Dbench(std::string name, const DbenchParams& p) : name_(std::move(name)), p_(p) {}
  const std::string& name() const override { return name_; }
  void start(Kernel& k) override;
  uint64_t ops() const { return ops_; }
  uint64_t bytes() const { return bytes_; }
  nlohmann::json metrics(Kernel& k, double sim_s) const override;

 private:
  struct Client {
    int id = 0;
    std::vector<uint32_t> file_pages;  // pages of each existing file (its size)
    uint32_t buffer_mapped = 0;        // pages of its I/O buffer faulted in so far
  };
  void fault_in_buffer(Kernel& k, Client& c, uint32_t pages);
  void run(Kernel& k, Client& c);
  void write(Kernel& k, Client& c, size_t f, uint32_t pages);
  void read(Kernel& k, Client& c, size_t f, uint32_t pages);
  uint64_t page_of(const Client& c, size_t f, uint32_t p, const Kernel& k) const;

  std::string name_;
  DbenchParams p_;
  std::vector<Client> clients_;
  uint64_t ops_ = 0, bytes_ = 0;
};

}  // namespace latsim::workloads
