#include "kernel_sim/workloads/disk_read.h"
#include "kernel_sim/block/block_layer.h"

namespace latsim::kernel {
namespace {
constexpr uint64_t kFileStartLba = 8000000;  // assumption: the tmpfile sits ~4 GB into hda
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

}  // namespace latsim::kernel
