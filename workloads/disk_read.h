#pragma once
// `cat tmpfile > /dev/null` (seed 000): read a file larger than the page cache
// can keep, block by block, over and over.
#include "workloads/program.h"

namespace latsim::workloads {

struct DiskReadParams {
  int file_mb = 350;  // a 350,000,000-byte tmpfile, larger than the page cache (seed 000)
  int block_kb = 64;  // cat's read(2) size
};

class DiskRead : public Program {
 public:
  DiskRead(std::string name, int file_mb, int block_kb)
      : name_(std::move(name)), file_mb_(file_mb), block_kb_(block_kb) {}
  const std::string& name() const override { return name_; }
  void start(Kernel& k) override;
  uint64_t bytes() const { return bytes_; }
  sc_core::sc_time started() const { return t0_; }
  nlohmann::json metrics(Kernel& k, double sim_s) const override;

 private:
  void run(Kernel& k);
  std::string name_;
  int file_mb_, block_kb_;
  uint64_t bytes_ = 0;
  sc_core::sc_time t0_;
};

}  // namespace latsim::workloads
