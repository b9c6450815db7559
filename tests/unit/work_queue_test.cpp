// The operator's work queue (src/operator/work_queue.h), as client-go's behaves: a key queued
// once however often it is added, never handed to two reconciles at once, requeues after their
// delay, and a shut-down queue that lets its worker go.
#include "operator/work_queue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

namespace planter::op {
namespace {

using namespace std::chrono_literals;

TEST(WorkQueue, AKeyAddedTwiceIsReconciledOnceInTheOrderKeysCame) {
  std::vector<size_t> depths;
  WorkQueue q({[&](size_t d) { depths.push_back(d); }, nullptr, nullptr});
  q.add("ns/a");
  q.add("ns/b");
  q.add("ns/a");
  EXPECT_EQ(q.depth(), 2u);
  EXPECT_EQ(depths, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(q.get(), "ns/a");
  EXPECT_EQ(q.get(), "ns/b");
  EXPECT_EQ(q.depth(), 0u);
}

TEST(WorkQueue, AKeyAddedWhileReconciledWaitsUntilTheReconcileIsDone) {
  WorkQueue q;
  q.add("ns/a");
  ASSERT_EQ(q.get(), "ns/a");
  q.add("ns/a");  // an update came while the worker has it
  EXPECT_EQ(q.depth(), 0u) << "a second worker must not get it now";
  EXPECT_FALSE(q.done("ns/a"));
  EXPECT_EQ(q.depth(), 1u);
  EXPECT_EQ(q.get(), "ns/a");
  EXPECT_FALSE(q.done("ns/a"));
  EXPECT_EQ(q.depth(), 0u);
}

TEST(WorkQueue, ARequeueComesBackAfterItsDelayAndIsCountedAsOne) {
  int retried = 0;
  WorkQueue q({nullptr, [&] { ++retried; }, nullptr});
  q.add("ns/a");
  ASSERT_EQ(q.get(), "ns/a");
  q.add_after("ns/a", 50ms);
  EXPECT_TRUE(q.done("ns/a")) << "the reconcile asked to be requeued (requeue_after)";
  EXPECT_EQ(q.depth(), 0u);
  EXPECT_EQ(q.delayed(), 1u);
  auto asked = std::chrono::steady_clock::now();
  EXPECT_EQ(q.get(), "ns/a");
  EXPECT_GE(std::chrono::steady_clock::now() - asked, 40ms);
  EXPECT_EQ(retried, 1);
  EXPECT_FALSE(q.done("ns/a"));
}

TEST(WorkQueue, AShortRequeueOvertakesALongOne) {
  WorkQueue q;
  q.add_after("ns/slow", 10s);
  q.add_after("ns/fast", 20ms);
  EXPECT_EQ(q.get(), "ns/fast");
  EXPECT_EQ(q.delayed(), 1u);
}

TEST(WorkQueue, ShuttingDownLetsAWaitingWorkerGoAndDropsWhatWaits) {
  WorkQueue q;
  q.add_after("ns/a", 10s);
  auto worker = std::async(std::launch::async, [&] { return q.get(); });
  q.shut_down();
  ASSERT_EQ(worker.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(worker.get(), std::nullopt);
  q.add("ns/b");
  EXPECT_EQ(q.get(), std::nullopt);
  EXPECT_EQ(q.delayed(), 0u);
}

}  // namespace
}  // namespace planter::op
