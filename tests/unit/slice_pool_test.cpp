// The operator's planting workers (src/operator/slice_pool.h): a fixed number of slices at once,
// a job that keeps waiting starves nobody, a cancelled job runs no further slice, and a woken job
// runs its next slice without its pause.
#include "operator/slice_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace planter::op {
namespace {

using namespace std::chrono_literals;

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds within = 5s) {
  auto end = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(5ms);
  }
  return pred();
}

TEST(SlicePool, RunsEveryJobToItsEndWithAtMostItsWorkersAtOnce) {
  SlicePool pool(2);
  std::atomic<int> running{0}, most{0}, finished{0};
  for (int j = 0; j < 6; ++j) {
    auto slices = std::make_shared<int>(3);
    pool.submit("t", [&, slices]() -> std::optional<std::chrono::milliseconds> {
      int now = ++running;
      for (int seen = most; now > seen && !most.compare_exchange_weak(seen, now);) {
      }
      // sleep-ok(time): work inside a job
      std::this_thread::sleep_for(10ms);
      --running;
      if (--*slices == 0) {
        ++finished;
        return std::nullopt;
      }
      return 1ms;
    });
  }
  EXPECT_TRUE(eventually([&] { return finished == 6; }));
  EXPECT_EQ(most, 2);
  auto g = pool.gauges();
  EXPECT_EQ(g.running + g.queued + g.resting, 0u);
}

TEST(SlicePool, AJobThatKeepsWaitingHoldsNoWorkerBetweenSlices) {
  SlicePool pool(1);
  std::atomic<int> waiter_slices{0};
  pool.submit("t", [&]() -> std::optional<std::chrono::milliseconds> {
    ++waiter_slices;
    // sleep-ok(time): work inside a job: a slice that ends with the job still waiting
    std::this_thread::sleep_for(20ms);  // a slice that ends with the job still waiting
    return 50ms;
  });
  std::atomic<bool> quick_done{false};
  EXPECT_TRUE(eventually([&] { return waiter_slices >= 1; }));
  pool.submit("t", [&]() -> std::optional<std::chrono::milliseconds> {
    quick_done = true;
    return std::nullopt;
  });
  EXPECT_TRUE(eventually([&] { return quick_done.load(); }, 1s));
  EXPECT_TRUE(eventually([&] { return waiter_slices >= 3; }));
  SlicePool::Gauges g = pool.gauges();
  EXPECT_EQ(g.resting + g.running + g.queued, 1u);
}

TEST(SlicePool, ACancelledJobRunsNoFurtherSliceAndCancelWaitsForTheRunningOne) {
  SlicePool pool(1);
  std::atomic<int> slices{0};
  std::atomic<bool> inside{false};
  auto job = pool.submit("t", [&]() -> std::optional<std::chrono::milliseconds> {
    inside = true;
    ++slices;
    // sleep-ok(time): work inside a job
    std::this_thread::sleep_for(100ms);
    inside = false;
    return 1ms;
  });
  ASSERT_TRUE(eventually([&] { return inside.load(); }));
  pool.cancel(job);
  EXPECT_FALSE(inside);  // cancel returned after the running slice did
  int after = slices;
  // A job of the same tenant that rests once, as the cancelled one would: once its second slice
  // has run, the cancelled job's next slice (due 1 ms after its last) would have run before it.
  std::atomic<int> marker{0};
  pool.submit("t", [&]() -> std::optional<std::chrono::milliseconds> {
    if (++marker == 1) return 20ms;
    return std::nullopt;
  });
  ASSERT_TRUE(eventually([&] { return marker.load() == 2; }));
  EXPECT_EQ(slices, after);
  // A job cancelled before its first slice never runs.
  std::atomic<bool> ran{false};
  SlicePool busy(1);
  busy.submit("t", []() -> std::optional<std::chrono::milliseconds> {
    // sleep-ok(time): work inside a job
    std::this_thread::sleep_for(100ms);
    return std::nullopt;
  });
  auto queued = busy.submit("t", [&]() -> std::optional<std::chrono::milliseconds> {
    ran = true;
    return std::nullopt;
  });
  busy.cancel(queued);
  // The tenant's jobs run in order: once a job submitted after it has run, it had its turn.
  std::atomic<bool> later{false};
  busy.submit("t", [&]() -> std::optional<std::chrono::milliseconds> {
    later = true;
    return std::nullopt;
  });
  ASSERT_TRUE(eventually([&] { return later.load(); }));
  EXPECT_FALSE(ran);
}

TEST(SlicePool, TenantsTakeTurnsSoManyJobsOfOneDoNotStarveAnother) {
  SlicePool pool(1);
  std::mutex mu;
  std::vector<std::string> order;
  std::atomic<bool> release{false};
  auto job = [&](std::string name, bool hold) {
    return [&, name, hold]() -> std::optional<std::chrono::milliseconds> {
      // sleep-ok(poll): a held job waits for its release
      while (hold && !release) std::this_thread::sleep_for(1ms);
      std::lock_guard lock(mu);
      order.push_back(name);
      return std::nullopt;
    };
  };
  pool.submit("a", job("a1", true));  // holds the one worker
  ASSERT_TRUE(eventually([&] { return pool.gauges().running == 1; }));
  for (int i = 2; i <= 5; ++i) pool.submit("a", job("a" + std::to_string(i), false));
  pool.submit("b", job("b1", false));  // another tenant's one job, queued last
  EXPECT_EQ(pool.gauges().queued, 5u);
  release = true;
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(mu);
    return order.size() == 6;
  }));
  std::lock_guard lock(mu);
  EXPECT_EQ(order, (std::vector<std::string>{"a1", "a2", "b1", "a3", "a4", "a5"}))
      << "b's turn comes after one more of a's, not after all of them";
}

// A job that rests for an hour between slices runs its next one when woken, whether the wake
// comes while it rests or while its slice still runs.
TEST(SlicePool, AWokenJobRunsItsNextSliceWithoutItsPause) {
  SlicePool pool(1);
  std::atomic<int> slices{0};
  std::atomic<bool> in_slice{false}, release{false};
  auto job = pool.submit("t", [&]() -> std::optional<std::chrono::milliseconds> {
    int n = ++slices;
    if (n == 2) {
      in_slice = true;
      // sleep-ok(poll): the slice is held until the test has woken it while it runs
      while (!release) std::this_thread::sleep_for(1ms);
    }
    if (n == 3) return std::nullopt;
    return std::chrono::hours(1);
  });
  ASSERT_TRUE(eventually([&] { return pool.gauges().resting == 1; }));
  EXPECT_EQ(slices, 1);
  pool.wake(job);  // resting: its next slice now
  ASSERT_TRUE(eventually([&] { return in_slice.load(); }));
  pool.wake(job);  // running: its next slice comes without the hour's pause
  release = true;
  ASSERT_TRUE(eventually([&] { return slices == 3; }));
  EXPECT_TRUE(eventually([&] {
    auto g = pool.gauges();
    return g.running + g.queued + g.resting == 0;
  }));
}

}  // namespace
}  // namespace planter::op
