// arch/i386/mm/highmem.c (2.6.9): kmap_atomic() raises the preempt count before it
// looks at the page, even for a lowmem page it just returns page_address() of, so that
// a fault in __copy_*_user_inatomic fails at once instead of sleeping. A page's copy or
// clear between kmap_atomic and kunmap_atomic is a non-preemptible section: the seed's
// "started at: <kmap_atomic+0x23/0xe0> ... ended at: <kunmap_atomic+0x7b/0xa0>" (X's
// 329 us one, LKML 2004-09-03; cp's and cat's in the author's 2004-08-31 census). That
// kmap_atomic is a function, so the seed's kernel had CONFIG_HIGHMEM (without it 2.6.9's
// is a page_address() macro). 2.4's is inline and leaves the count alone.
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

// kernel.highmem (CONFIG_HIGHMEM) false: both are macros, no entry, no section.
bool Kernel::kmap_atomic_is_function() const {
  return flavour_.kmap_atomic_inc_preempt && p_.highmem;
}

void Kernel::kmap_atomic(const char* parent) {
  if (!kmap_atomic_is_function()) return;  // 2.4's is inline: page_address() of a lowmem page
  fn("kmap_atomic", parent, 20);
  preempt_disable({"kmap_atomic", "lock"});  // inc_preempt_count()
  fn("page_address", parent, 10);
}

void Kernel::kunmap_atomic(const char* parent) {
  if (!kmap_atomic_is_function()) return;
  mcount("kunmap_atomic", parent);
  preempt_enable({"kunmap_atomic", "unlock"});  // dec_preempt_count(); preempt_check_resched()
}

}  // namespace latsim::kernel
