#pragma once
// The fake-CPU harness (fake_cpu.h) with a fake IDE drive: the CPU records the task
// file and the READ/WRITE DMA command the driver writes, and the drive raises IRQ 14
// a fixed time after the bus master is started. No media, no bus: what a test sees is
// the block layer's requests (command, LBA, sectors) in the order it issued them.
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include "kernel_sim/block/block_layer.h"
#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::test {

struct DiskCommand {
  bool write = false;
  uint64_t lba = 0;
  uint32_t sectors = 0;
  sc_time at;      // when the driver wrote the command
  std::string by;  // the task current on the CPU then (its comm)
};

class DiskCpu : public FakeCpu {
 public:
  DiskCpu(int id, const FakeCosts& c, std::vector<FakeCpu*>* all, std::vector<DiskCommand>* log,
          sc_time service)
      : FakeCpu(id, c, all), log_(log), service_(service) {
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.set_sensitivity(&done_ev_);
    o.dont_initialize();
    sc_core::sc_spawn([this] { post(kernel::irq_vector(14)); },
                      sc_core::sc_gen_unique_name("fake_drive"), &o);
  }
  std::function<std::string()> who;  // names the current task (set by DiskMachine)
  void outb(uint8_t v, uint16_t port) override {
    FakeCpu::outb(v, port);
    if (port == 0x1f2) tf_.sectors = v ? v : 256;  // 0 means 256 sectors
    if (port >= 0x1f3 && port <= 0x1f5) {
      const int shift = 8 * (port - 0x1f3);
      tf_.lba = (tf_.lba & ~(0xffull << shift)) | (uint64_t(v) << shift);
    }
    if (port == 0x1f6) tf_.lba = (tf_.lba & 0xffffff) | (uint64_t(v & 0x0f) << 24);
    if (port == 0x1f7 && (v == 0xc8 || v == 0xca)) {  // READ DMA / WRITE DMA
      tf_.write = v == 0xca;
      tf_.at = sc_core::sc_time_stamp();
      tf_.by = who ? who() : std::string();
      log_->push_back(tf_);
    }
    if (port == 0xd000 && (v & 1)) done_ev_.notify(service_);  // BM start: done later
  }

 private:
  std::vector<DiskCommand>* log_;
  sc_time service_;
  DiskCommand tf_;
  sc_core::sc_event done_ev_;
};

// One CPU and the fake drive, the kernel booted with `p`.
struct DiskMachine {
  explicit DiskMachine(kernel::KernelParams p, sc_time service = sc_time(200, SC_NS) * 1000) {
    FakeCosts c;
    c.hz = p.hz;
    c.apic_bus_mhz = p.apic_bus_mhz;
    cpu = std::make_unique<DiskCpu>(0, c, &all, &commands, service);
    all.push_back(cpu.get());
    k = std::make_unique<kernel::Kernel>(p, std::vector<kernel::CpuOps*>{cpu.get()});
    cpu->who = [this] { return k->current().comm; };
  }
  void boot(std::function<void(kernel::Kernel&)> start) {
    k->add_workload(std::make_unique<LambdaWorkload>(std::move(start)));
    k->boot();
  }
  std::vector<DiskCommand> commands;
  std::vector<FakeCpu*> all;
  std::unique_ptr<DiskCpu> cpu;
  std::unique_ptr<kernel::Kernel> k;
};

inline kernel::KernelParams disk_params(int max_sectors_kb, int read_ahead_kb) {
  kernel::KernelParams p = flavour_params("2.6.9-vp");
  p.block.max_sectors_kb = max_sectors_kb;
  p.block.read_ahead_kb = read_ahead_kb;
  return p;
}

}  // namespace latsim::test
