#include "workloads/disk_read.h"
#include "kernel_sim/block/block_layer.h"
#include "workloads/registry.h"

namespace latsim::workloads {
namespace {
constexpr uint64_t kFileStartLba = 8000000;  // assumption: the tmpfile sits ~4 GB into hda

using params::integer;
const Registration kDiskRead{
    {"disk_read",
     "sequential read of a file to /dev/null (cat tmpfile > /dev/null)",
     {name_key(), file_mb_key<DiskReadParams>("file size"),
      param(params::bind(integer("block_kb", 4, 1024, "KiB", "read(2) size"),
                         &DiskReadParams::block_kb))},
     [] { return DiskReadParams{}; },
     [](const Config& c, const Board&) {
       const auto& p = c.as<DiskReadParams>();
       return std::make_unique<DiskRead>(c.name, p.file_mb, p.block_kb);
     }}};

}  // namespace

// cat's own read(2) figures (disk.* counts every file the disk delivered).
nlohmann::json DiskRead::metrics(Kernel&, double sim_s) const {
  const double secs = sim_s - started().to_seconds();
  return {{"bytes", bytes()}, {"mb_s", secs > 0 ? round3(double(bytes()) / 1e6 / secs) : 0.0}};
}

void DiskRead::start(Kernel& k) {
  k.block().setup_file(uint64_t(file_mb_) * 256, kFileStartLba);
  k.create_task(
      "cat", [this, &k] { run(k); }, Policy::Normal, 0);
}

void DiskRead::run(Kernel& k) {
  t0_ = k.now();
  const uint64_t per_block = uint64_t(block_kb_) / 4;
  const uint64_t pages = k.block().file_pages();
  for (;;) {
    for (uint64_t p = 0; p < pages; ++p) {
      if (p % per_block == 0) {
        k.user_exec(3000, 4);  // cat's loop around read()
        k.fn("sys_read", "syscall_call", 200, 2);
        k.fn("vfs_read", "sys_read", 120, 1);
      }
      k.block().read_page(p, "do_generic_mapping_read");
      bytes_ += 4096;
      if (p % per_block == per_block - 1) k.fn("sys_write", "syscall_call", 300, 2);  // > /dev/null
      k.cond_resched("do_generic_mapping_read");
    }
  }
}

}  // namespace latsim::workloads
