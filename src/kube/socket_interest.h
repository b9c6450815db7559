#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

namespace planter::kube {

// The sockets a transport worker waits on, and for what: an epoll set kept as curl's socket
// interface asks (CURLMOPT_SOCKETFUNCTION). The kernel drops a descriptor from an epoll set when
// it is closed, and curl does not always say CURL_POLL_REMOVE before it closes one (a connection
// its cache prunes), so the set never trusts its own memory of what it holds: a descriptor number
// reused for a new socket is watched again whatever became of the old one.
class SocketInterest {
 public:
  SocketInterest();
  ~SocketInterest();
  SocketInterest(const SocketInterest&) = delete;
  SocketInterest& operator=(const SocketInterest&) = delete;

  // Wait on `fd` for reading and/or writing (both false: for errors and hang-ups only).
  void watch(int fd, bool read, bool write);
  // Stop waiting on `fd` (it may be closed already).
  void forget(int fd);
  // Make wait() return at once, from any thread.
  void wake();

  struct Ready {
    int fd;
    bool read, write, error;
  };
  // The watched sockets that are ready, waiting up to `timeout` (zero: do not wait) or until
  // wake(). The wake-ups are consumed, not returned.
  std::vector<Ready> wait(std::chrono::milliseconds timeout);

 private:
  int epoll_;
  int wakeup_;  // an eventfd
};

}  // namespace planter::kube
