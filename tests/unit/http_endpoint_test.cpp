// The daemons' HTTP endpoint (/metrics, /healthz, /readyz): a burst of idle connections that runs
// the process out of file descriptors must not stop it for good.
#include "daemon/http_endpoint.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace planter::daemon {
namespace {

using namespace std::chrono_literals;

int connect_to(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// GET `path`: the response's first line, or "" when none came within `limit`.
std::string get(uint16_t port, const std::string& path, std::chrono::seconds limit) {
  int fd = connect_to(port);
  if (fd < 0) return "";
  timeval tv{static_cast<time_t>(limit.count()), 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  if (::send(fd, req.data(), req.size(), 0) != static_cast<ssize_t>(req.size())) {
    ::close(fd);
    return "";
  }
  std::string got;
  char buf[512];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
    got.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return got.substr(0, got.find("\r\n"));
}

TEST(HttpEndpoint, AnswersAgainAfterRunningOutOfFileDescriptors) {
  auto endpoint = HttpEndpoint::start("127.0.0.1:0", [](const std::string& path) {
    return HttpAnswer{200, "text/plain", "ok " + path + "\n"};
  });
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  uint16_t port = endpoint.value()->port();
  ASSERT_EQ(get(port, "/metrics", 5s), "HTTP/1.1 200 OK");

  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  // Room for 64 more descriptors: the idle clients below and the endpoint's accepted sockets
  // share them, so the endpoint's accept fails with EMFILE while connections wait in its backlog.
  int highest = 0;
  for (int fd = 0; fd < 4096; ++fd)
    if (::fcntl(fd, F_GETFD) != -1) highest = fd;
  rlimit low = saved;
  low.rlim_cur = static_cast<rlim_t>(highest + 64);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<int> idle;
  bool exhausted = false;
  for (int i = 0; i < 400; ++i) {
    int fd = connect_to(port);
    if (fd < 0) {
      exhausted = errno == EMFILE || errno == ENFILE;
      break;
    }
    idle.push_back(fd);
  }
  // The backlog's connections now fail to be accepted, for want of a descriptor.
  // sleep-ok(none): the endpoint's failed accepts are not observable from outside
  std::this_thread::sleep_for(300ms);
  for (int fd : idle) ::close(fd);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &saved), 0);
  EXPECT_TRUE(exhausted) << "the burst never ran out of descriptors (" << idle.size()
                         << " connections)";
  // It accepts again once descriptors are free: within a few seconds, not never.
  EXPECT_EQ(get(port, "/metrics", 10s), "HTTP/1.1 200 OK");
  EXPECT_EQ(get(port, "/healthz", 10s), "HTTP/1.1 200 OK");
}

}  // namespace
}  // namespace planter::daemon
