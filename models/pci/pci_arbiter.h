#pragma once
// Central PCI arbiter: which REQ# gets GNT#. Rotating priority gives each
// requester a turn after the last owner; fixed priority always favours the
// lowest-numbered master (the host bridge is master 0).
#include <vector>

namespace latsim::pci {

enum class ArbitrationPolicy { Rotate, Fixed };

class PciArbiter {
 public:
  explicit PciArbiter(ArbitrationPolicy p) : policy_(p) {}
  // Returns the master to grant among `req` (true = REQ# asserted), or -1.
  int grant(const std::vector<bool>& req) {
    const int n = int(req.size());
    if (n == 0) return -1;
    const int first = policy_ == ArbitrationPolicy::Rotate ? (last_ + 1) % n : 0;
    for (int i = 0; i < n; ++i) {
      int m = (first + i) % n;
      if (req[m]) return last_ = m;
    }
    return -1;
  }
  int last_granted() const { return last_; }

 private:
  ArbitrationPolicy policy_;
  int last_ = -1;
};

}  // namespace latsim::pci
