#include "kube/socket_interest.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>

namespace planter::kube {

SocketInterest::SocketInterest()
    : epoll_(epoll_create1(EPOLL_CLOEXEC)), wakeup_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wakeup_;
  epoll_ctl(epoll_, EPOLL_CTL_ADD, wakeup_, &ev);
}

SocketInterest::~SocketInterest() {
  close(wakeup_);
  close(epoll_);
}

void SocketInterest::watch(int fd, bool read, bool write) {
  epoll_event ev{};
  ev.data.fd = fd;
  ev.events = (read ? EPOLLIN : 0u) | (write ? EPOLLOUT : 0u);
  // Modified when the set holds the descriptor, added when it does not: which one is learnt from
  // the kernel, the only one that knows whether a closed descriptor left the set.
  if (epoll_ctl(epoll_, EPOLL_CTL_MOD, fd, &ev) != 0 && errno == ENOENT)
    epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev);
}

void SocketInterest::forget(int fd) {
  epoll_event ev{};
  epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, &ev);
}

void SocketInterest::wake() {
  uint64_t one = 1;
  (void)!write(wakeup_, &one, sizeof one);
}

std::vector<SocketInterest::Ready> SocketInterest::wait(std::chrono::milliseconds timeout) {
  epoll_event events[64];
  int ms = static_cast<int>(std::min<int64_t>(std::max<int64_t>(timeout.count(), 0), INT_MAX));
  int n = epoll_wait(epoll_, events, 64, ms);
  std::vector<Ready> ready;
  for (int i = 0; i < n; ++i) {
    if (events[i].data.fd == wakeup_) {
      uint64_t count;
      (void)!read(wakeup_, &count, sizeof count);
      continue;
    }
    uint32_t e = events[i].events;
    ready.push_back({events[i].data.fd, (e & EPOLLIN) != 0, (e & EPOLLOUT) != 0,
                     (e & (EPOLLERR | EPOLLHUP)) != 0});
  }
  return ready;
}

}  // namespace planter::kube
