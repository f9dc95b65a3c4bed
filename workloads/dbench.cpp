#include "workloads/dbench.h"
#include <algorithm>
#include <string>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/fs/reiserfs.h"
#include "workloads/registry.h"

namespace latsim::workloads {
namespace {

const Registration kDbench{
    {"dbench",
     "dbench N: NetBench file-server clients on the ReiserFS root (creates, writes, reads, "
     "stats, unlinks)",
     {name_key(),
      param(params::bind(params::integer("clients", 0, 256, "",
                                         "client processes (dbench N); 0: none, the "
                                         "file system idle"),
                         &DbenchParams::clients)),
      param(params::bind_as<DbenchParams, int64_t>(
          params::with_source(params::integer("buffer_bytes", 0, 1 << 20, "bytes",
                                              "each client's I/O buffer, faulted in page by "
                                              "page as ops first reach it (0: already mapped)"),
                              "dbench 1.x fileio.c: static char buf[70000]"),
          [](DbenchParams& p) -> uint32_t& { return p.buffer_bytes; }))},
     [] { return DbenchParams{}; },
     [](const Config& c, const Board&) {
       return std::make_unique<Dbench>(c.name, c.as<DbenchParams>());
     }}};

}  // namespace

// dbench's "Throughput N MB/sec": bytes read and written by the clients.
nlohmann::json Dbench::metrics(Kernel&, double sim_s) const {
  return {{"ops", ops()}, {"throughput_mb_s", round3(double(bytes()) / 1e6 / sim_s)}};
}

void Dbench::start(Kernel& k) {
  k.reiserfs();
  clients_.resize(size_t(p_.clients));
  for (int i = 0; i < p_.clients; ++i) {
    clients_[size_t(i)].id = i;
    Client* c = &clients_[size_t(i)];
    k.create_task(
        "dbench", [this, &k, c] { run(k, *c); }, Policy::Normal, 0);
  }
}

uint64_t Dbench::page_of(const Client& c, size_t f, uint32_t p, const Kernel& k) const {
  const ReiserFs& fs = *k.reiserfs_if_mounted();
  const uint64_t file = uint64_t(c.id) * p_.files_per_client + f;
  return fs.data_page_index((file * p_.max_file_pages + p) % fs.data_pages());
}

// The buffer's pages an op of `pages` reaches for the first time fault in: 2.4's
// do_anonymous_page drops page_table_lock, allocates and clears the page (a ReadX's
// copy_to_user writes it; a WriteX's read maps the zero page, which do_wp_page later
// replaces by a cleared one: one clear either way).
void Dbench::fault_in_buffer(Kernel& k, Client& c, uint32_t pages) {
  const uint32_t buffer_pages = (p_.buffer_bytes + 4095) / 4096;
  for (; c.buffer_mapped < std::min(pages, buffer_pages); ++c.buffer_mapped) {
    k.fn("do_page_fault", "error_code", 300, 3);
    k.fn("do_anonymous_page", "handle_mm_fault", 200, 2);
    k.kmap_atomic("do_anonymous_page");  // clear_user_highpage
    if (!k.mmx_clear_page("do_anonymous_page"))
      k.fn("clear_page", "do_anonymous_page", 1100, 2, 128);
    k.kunmap_atomic("do_anonymous_page");
  }
}

// WriteX: generic_file_write page by page; a page past the end needs a new block.
void Dbench::write(Kernel& k, Client& c, size_t f, uint32_t pages) {
  k.fn("sys_write", "system_call", 200, 2);
  fault_in_buffer(k, c, pages);
  uint32_t& size = c.file_pages[f];
  const uint32_t at = size >= p_.max_file_pages ? 0 : size;  // a full file is rewritten
  for (uint32_t i = 0; i < pages && at + i < p_.max_file_pages; ++i) {
    if (at + i >= size) {
      k.reiserfs().get_block({uint32_t(c.id), uint32_t(f)}, page_of(c, f, at + i, k),
                             "block_prepare_write");
      size = at + i + 1;
    }
    k.block().write_page(page_of(c, f, at + i, k), "generic_file_write");
    bytes_ += 4096;
    k.conditional_schedule("generic_file_write");
  }
  k.reiserfs().dirty_inode({uint32_t(c.id), uint32_t(f)});  // mtime and size
}

// ReadX: the file's pages are in the page cache (dbench reads what it wrote).
void Dbench::read(Kernel& k, Client& c, size_t f, uint32_t pages) {
  k.fn("sys_read", "system_call", 200, 2);
  const uint32_t n = std::min(pages, c.file_pages[f]);
  fault_in_buffer(k, c, n);
  for (uint32_t i = 0; i < n; ++i) {
    k.fn("__find_get_page", "do_generic_file_read", 150, 2);
    k.fn("__copy_to_user", "file_read_actor", 1100, 2, 128);  // 4 KiB from DRAM
    bytes_ += 4096;
    k.conditional_schedule("do_generic_file_read");
  }
}

void Dbench::run(Kernel& k, Client& c) {
  Rng rng(k.params().seed, "dbench/" + std::to_string(c.id));
  ReiserFs& fs = k.reiserfs();
  for (;;) {
    k.user_exec(p_.user_cycles_per_op, 20);
    const double u = rng.uniform();
    const uint32_t pages = uint32_t(1 + rng.below(p_.max_io_kb / 4));
    const size_t f = c.file_pages.empty() ? 0 : size_t(rng.below(c.file_pages.size()));
    double acc = p_.p_create;
    if (u < acc || c.file_pages.empty()) {
      fs.lookup("sys_open");
      if (c.file_pages.size() < p_.files_per_client) {
        fs.create({uint32_t(c.id), uint32_t(c.file_pages.size())}, "open_namei");
        c.file_pages.push_back(0);
      }
    } else if (u < (acc += p_.p_open)) {
      fs.lookup("sys_open");
    } else if (u < (acc += p_.p_close)) {
      k.fn("sys_close", "system_call", 400, 4);
    } else if (u < (acc += p_.p_read)) {
      read(k, c, f, pages);
    } else if (u < (acc += p_.p_write)) {
      write(k, c, f, pages);
    } else if (u < (acc += p_.p_stat)) {
      fs.lookup("sys_stat64");
      k.fn("cp_new_stat64", "sys_stat64", 300, 2);
    } else if (u < (acc += p_.p_readdir)) {
      fs.lookup("sys_open");
      k.fn("reiserfs_readdir", "vfs_readdir", 3000, 24);
    } else {
      fs.lookup("sys_unlink");
      fs.unlink({uint32_t(c.id), uint32_t(f)}, page_of(c, f, 0, k), c.file_pages[f], "sys_unlink");
      c.file_pages.erase(c.file_pages.begin() + long(f));
    }
    ops_++;
    k.resume_userspace("system_call");
  }
}

}  // namespace latsim::workloads
