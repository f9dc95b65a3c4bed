#pragma once
// ReiserFS's and kupdated's parameters: the kernel.reiserfs.* keys.
#include <cstdint>
#include "common/params.h"

namespace latsim::kernel {

struct ReiserFsParams {
  uint32_t journal_blocks = 8192;    // JOURNAL_BLOCK_COUNT: the default log size
  uint32_t journal_max_batch = 900;  // JOURNAL_MAX_BATCH: a running transaction commits here
  uint32_t kupdate_interval_s = 5;   // bdflush_param interval (5*HZ)
  uint64_t data_pages = 1u << 18;    // page-cache pages of the files dbench writes (1 GiB)
};

// kernel.reiserfs.*, paths under "kernel.reiserfs." (reiserfs.cpp).
params::Table<ReiserFsParams> reiserfs_keys();

}  // namespace latsim::kernel
