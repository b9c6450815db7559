#include "kube/socket_interest.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

namespace planter::kube {
namespace {

using std::chrono::milliseconds;

struct Pair {
  int near = -1, far = -1;
  Pair() {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    near = fds[0];
    far = fds[1];
  }
  ~Pair() {
    if (near >= 0) close(near);
    if (far >= 0) close(far);
  }
};

bool ready_to_read(const std::vector<SocketInterest::Ready>& ready, int fd) {
  for (const auto& r : ready)
    if (r.fd == fd && r.read) return true;
  return false;
}

TEST(SocketInterest, SaysWhichSocketHasSomethingToRead) {
  SocketInterest sockets;
  Pair a, b;
  sockets.watch(a.near, true, false);
  sockets.watch(b.near, true, false);
  ASSERT_EQ(write(b.far, "x", 1), 1);
  auto ready = sockets.wait(milliseconds(1000));
  EXPECT_TRUE(ready_to_read(ready, b.near));
  EXPECT_FALSE(ready_to_read(ready, a.near));
}

// What stalled an operator planting 5,000 Seeds: curl closed a connection without saying
// CURL_POLL_REMOVE, the kernel dropped the descriptor from the set, and the number came back for
// a new connection whose answers were then never read.
TEST(SocketInterest, ADescriptorNumberReusedAfterAQuietCloseIsWatchedAgain) {
  SocketInterest sockets;
  Pair old_connection;
  int number = old_connection.near;
  sockets.watch(number, true, false);
  close(old_connection.near);  // closed without forget()
  old_connection.near = -1;

  Pair fresh;  // the new connection gets the old number, as the lowest free one or made to
  if (fresh.near != number) {
    ASSERT_EQ(dup2(fresh.near, number), number);
    close(fresh.near);
    fresh.near = number;
  }
  sockets.watch(number, true, false);
  ASSERT_EQ(write(fresh.far, "x", 1), 1);
  EXPECT_TRUE(ready_to_read(sockets.wait(milliseconds(1000)), number));
}

TEST(SocketInterest, ForgottenSocketsAreNotReportedAndForgettingAClosedOneIsHarmless) {
  SocketInterest sockets;
  Pair a;
  sockets.watch(a.near, true, false);
  sockets.forget(a.near);
  ASSERT_EQ(write(a.far, "x", 1), 1);
  EXPECT_TRUE(sockets.wait(milliseconds(50)).empty());
  int closed = dup(a.near);
  close(closed);
  sockets.forget(closed);
}

TEST(SocketInterest, WakeEndsAWaitFromAnotherThread) {
  SocketInterest sockets;
  std::jthread waker([&] {
    // sleep-ok(time): the wait a wake() from another thread must end is under way
    std::this_thread::sleep_for(milliseconds(20));
    sockets.wake();
  });
  auto began = std::chrono::steady_clock::now();
  EXPECT_TRUE(sockets.wait(milliseconds(30'000)).empty());
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(10));
}

}  // namespace
}  // namespace planter::kube
