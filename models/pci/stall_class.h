#pragma once
// Why a CPU's PCI access took long, as the target declares it: a target whose
// wait states or Retries come from something other than PCI itself (an ISA cycle
// behind the south bridge, a full graphics FIFO) marks the transaction with an
// ignorable TLM extension in b_transport; the bus reads and clears it.
#include <tlm>

namespace latsim::pci {

enum class StallClass { Pci, Isa, VideoFifo };

class StallClassExtension : public tlm::tlm_extension<StallClassExtension> {
 public:
  explicit StallClassExtension(StallClass c) : cls(c) {}
  tlm::tlm_extension_base* clone() const override { return new StallClassExtension(cls); }
  void copy_from(const tlm::tlm_extension_base& e) override {
    cls = static_cast<const StallClassExtension&>(e).cls;
  }
  void free() override {}  // the shared instances below are never owned by a payload
  StallClass cls;
};

// Called by a target in b_transport: the delay it adds is of class `c`.
inline void declare_stall_class(tlm::tlm_generic_payload& p, StallClass c) {
  static StallClassExtension isa(StallClass::Isa), video(StallClass::VideoFifo),
      pci(StallClass::Pci);
  p.set_extension(c == StallClass::Isa ? &isa : c == StallClass::VideoFifo ? &video : &pci);
}

// Called by the bus after the target returned: the declared class (Pci if none).
inline StallClass take_stall_class(tlm::tlm_generic_payload& p) {
  auto* e = p.get_extension<StallClassExtension>();
  if (!e) return StallClass::Pci;
  p.clear_extension(e);
  return e->cls;
}

}  // namespace latsim::pci
