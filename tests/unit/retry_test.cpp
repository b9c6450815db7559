// The few reads planter makes before planting are tried again while they fail transiently and
// time remains, each wait spread by the random source the caller gives.
#include "kube/retry.h"

#include <gtest/gtest.h>

#include <chrono>

namespace planter::kube {
namespace {

using namespace std::chrono_literals;

ApiError unavailable() {
  ApiError e;
  e.code = 503;
  e.reason = "ServiceUnavailable";
  return e;
}

TEST(RetryTransientTest, TriesAgainWhileTransientDrawingEachWaitFromTheGivenSource) {
  int calls = 0, draws = 0, heard = 0;
  auto result = retry_transient(
      [&]() -> ApiResult<int> {
        if (++calls < 3) return unavailable();
        return 7;
      },
      std::chrono::steady_clock::now() + 30s,
      [&](const ApiError& e) {
        EXPECT_EQ(e.code, 503);
        ++heard;
      },
      [&] {
        ++draws;
        return uint64_t{0};  // the shortest waits: half of 200 ms, then of 400 ms
      });
  ASSERT_TRUE(result);
  EXPECT_EQ(result.value(), 7);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(draws, 2);
  EXPECT_EQ(heard, 2);
}

TEST(RetryTransientTest, AFailureForGoodOrNoTimeLeftEndsAtOnce) {
  int calls = 0;
  auto forbidden = retry_transient(
      [&]() -> ApiResult<int> {
        ++calls;
        ApiError e;
        e.code = 403;
        e.reason = "Forbidden";
        return e;
      },
      std::chrono::steady_clock::now() + 30s);
  ASSERT_FALSE(forbidden);
  EXPECT_EQ(forbidden.error().code, 403);
  EXPECT_EQ(calls, 1);

  calls = 0;
  auto late = retry_transient(
      [&]() -> ApiResult<int> {
        ++calls;
        return unavailable();
      },
      std::chrono::steady_clock::now() + 50ms);  // the first wait is at least 100 ms
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, 503);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace planter::kube
