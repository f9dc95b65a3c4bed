#include "kernel_sim/sched/runqueue.h"
#include <algorithm>

namespace latsim::kernel {

void PrioArray::enqueue(Task* p) {
  queue[p->prio].push_back(p);
  bitmap.set(p->prio);
  nr_active++;
  p->array = this;
}

void PrioArray::enqueue_head(Task* p) {
  queue[p->prio].push_front(p);
  bitmap.set(p->prio);
  nr_active++;
  p->array = this;
}

void PrioArray::dequeue(Task* p) {
  auto& q = queue[p->prio];
  q.erase(std::find(q.begin(), q.end(), p));
  if (q.empty()) bitmap.reset(p->prio);
  nr_active--;
  p->array = nullptr;
}

int PrioArray::first() const {
  // sched_find_first_bit: a word at a time (libstdc++'s find-first; MAX_PRIO when empty).
  return int(bitmap._Find_first());
}

}  // namespace latsim::kernel
