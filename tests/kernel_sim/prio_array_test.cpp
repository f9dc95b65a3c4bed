// The O(1) scheduler's priority array (kernel_sim/sched/runqueue.*).
#include <gtest/gtest.h>
#include <memory>
#include <vector>
#include "kernel_sim/sched/runqueue.h"

namespace latsim::kernel {
namespace {

struct Tasks {
  std::vector<std::unique_ptr<Task>> v;
  Task* make(int pid, int prio) {
    v.push_back(std::make_unique<Task>());
    v.back()->pid = pid;
    v.back()->prio = prio;
    return v.back().get();
  }
};

std::vector<int> pids(const PrioArray& a, int prio) {
  std::vector<int> r;
  for (const Task* t : a.queue[prio]) r.push_back(t->pid);
  return r;
}

TEST(PrioArrayTest, EmptyFirstIsMaxPrio) {
  auto a = std::make_unique<PrioArray>();
  EXPECT_EQ(a->first(), MAX_PRIO);
  EXPECT_EQ(a->nr_active, 0);
  EXPECT_TRUE(a->bitmap.none());
}

TEST(PrioArrayTest, FirstIsHighestPriorityAcrossRtAndNormal) {
  auto a = std::make_unique<PrioArray>();
  Tasks ts;
  Task* normal = ts.make(1, nice_to_prio(0));   // 120
  Task* niced = ts.make(2, nice_to_prio(-10));  // 110
  Task* rt50 = ts.make(3, 49);                  // SCHED_FIFO rt_priority 50
  Task* rt99 = ts.make(4, 0);                   // rt_priority 99
  Task* low = ts.make(5, MAX_PRIO - 1);         // nice 19
  a->enqueue(normal);
  EXPECT_EQ(a->first(), 120);
  a->enqueue(low);
  EXPECT_EQ(a->first(), 120);
  a->enqueue(niced);
  EXPECT_EQ(a->first(), 110);
  a->enqueue(rt50);
  EXPECT_EQ(a->first(), 49);
  EXPECT_TRUE(rt50->rt());
  EXPECT_FALSE(niced->rt());
  a->enqueue(rt99);
  EXPECT_EQ(a->first(), 0);
  EXPECT_EQ(a->nr_active, 5);
  EXPECT_EQ(a->bitmap.count(), 5u);
  EXPECT_EQ(rt99->array, a.get());

  a->dequeue(rt99);
  EXPECT_EQ(rt99->array, nullptr);
  EXPECT_EQ(a->first(), 49);
  a->dequeue(rt50);
  EXPECT_EQ(a->first(), 110);
  a->dequeue(normal);
  EXPECT_EQ(a->first(), 110);
  a->dequeue(niced);
  EXPECT_EQ(a->first(), MAX_PRIO - 1);
  a->dequeue(low);
  EXPECT_EQ(a->first(), MAX_PRIO);
  EXPECT_EQ(a->nr_active, 0);
  EXPECT_TRUE(a->bitmap.none());
}

TEST(PrioArrayTest, FifoWithinPriority) {
  auto a = std::make_unique<PrioArray>();
  Tasks ts;
  Task* t1 = ts.make(1, 120);
  Task* t2 = ts.make(2, 120);
  Task* t3 = ts.make(3, 120);
  a->enqueue(t1);
  a->enqueue(t2);
  a->enqueue(t3);
  EXPECT_EQ(pids(*a, 120), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(a->queue[120].front(), t1);
  // Dequeue from the middle keeps the others' order and the bit.
  a->dequeue(t2);
  EXPECT_EQ(pids(*a, 120), (std::vector<int>{1, 3}));
  EXPECT_TRUE(a->bitmap.test(120));
  EXPECT_EQ(a->nr_active, 2);
  // Requeue (round robin / yield): goes to the tail.
  a->dequeue(t1);
  a->enqueue(t1);
  EXPECT_EQ(pids(*a, 120), (std::vector<int>{3, 1}));
  a->dequeue(t3);
  a->dequeue(t1);
  EXPECT_FALSE(a->bitmap.test(120));
  EXPECT_EQ(a->first(), MAX_PRIO);
}

TEST(PrioArrayTest, EnqueueHeadGoesFirst) {
  auto a = std::make_unique<PrioArray>();
  Tasks ts;
  Task* t1 = ts.make(1, 10);
  Task* t2 = ts.make(2, 10);
  Task* t3 = ts.make(3, 10);
  a->enqueue(t1);
  a->enqueue(t2);
  a->enqueue_head(t3);  // a preempted RT task goes back to the head
  EXPECT_EQ(pids(*a, 10), (std::vector<int>{3, 1, 2}));
  EXPECT_EQ(a->nr_active, 3);
  EXPECT_EQ(t3->array, a.get());
  EXPECT_EQ(a->first(), 10);
  // enqueue_head into an empty level sets its bit.
  Task* t4 = ts.make(4, 5);
  a->enqueue_head(t4);
  EXPECT_EQ(a->first(), 5);
  EXPECT_EQ(pids(*a, 5), (std::vector<int>{4}));
}

TEST(PrioArrayTest, RunqueueArraysStartActiveAndExpired) {
  auto rq = std::make_unique<Runqueue>();
  EXPECT_EQ(rq->active, &rq->arrays[0]);
  EXPECT_EQ(rq->expired, &rq->arrays[1]);
  EXPECT_EQ(rq->active->first(), MAX_PRIO);
  EXPECT_EQ(rq->expired->first(), MAX_PRIO);
}

}  // namespace
}  // namespace latsim::kernel
