// Many clusters on the transport's shared workers: a fixed number of threads drives every
// cluster, each cluster's requests land exactly once, and a cluster that refuses connections or
// never answers holds up no other one.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/client.h"
#include "kube/sim_fleet.h"
#include "kube/transport.h"

namespace planter::kube {
namespace {

namespace json = boost::json;
using testing::SimFleet;
using Clock = std::chrono::steady_clock;

int threads_of_this_process() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("Threads:")) return std::stoi(line.substr(8));
  return -1;
}

json::object config_map(const std::string& name) {
  return json::object{{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"metadata", {{"name", name}, {"namespace", "default"}}},
                      {"data", {{"k", "v"}}}};
}

std::unique_ptr<Client> client_for(RestConfig config) {
  ClientOptions options;
  options.transport.qps = 0;
  options.transport.max_attempts = 100;  // a dead cluster keeps trying for the whole test
  options.transport.backoff_cap = std::chrono::milliseconds(200);
  options.transport.connect_timeout = std::chrono::milliseconds(500);
  auto c = Client::create(std::move(config), options);
  EXPECT_TRUE(c.ok());
  return std::move(c.value());
}

// Applies `n` ConfigMaps through `client` and returns how many succeeded, waiting at most `limit`.
int apply_many(Client& client, const std::string& prefix, int n, std::chrono::seconds limit) {
  std::atomic<int> ok{0}, left{n};
  auto all = std::make_shared<std::promise<void>>();
  auto done = all->get_future();
  for (int i = 0; i < n; ++i)
    client.apply_async(config_map(prefix + std::to_string(i)), {}, [&ok, &left, all](auto r) {
      if (r.ok()) ++ok;
      if (--left == 0) all->set_value();
    });
  done.wait_for(limit);
  return ok;
}

TEST(FleetTransport, FortyClustersShareAFewThreadsAndEveryWriteLandsOnce) {
  sim::ServerOptions options;
  options.fleet.clusters = 40;
  SimFleet fleet(options);
  int before = threads_of_this_process();
  std::vector<std::unique_ptr<Client>> clients;
  for (int c = 1; c <= 40; ++c)
    clients.push_back(client_for(fleet.rest_config("edge" + std::to_string(c))));
  // A thread per cluster would add 40; the shared workers are one per core, at most four.
  EXPECT_LE(threads_of_this_process() - before, 4);

  std::vector<std::future<int>> results;
  for (auto& c : clients)
    results.push_back(std::async(
        std::launch::async, [&c] { return apply_many(*c, "cm-", 25, std::chrono::seconds(30)); }));
  for (auto& r : results) EXPECT_EQ(r.get(), 25);
  std::map<std::string, int> writes;  // cluster|name -> times written
  for (const json::object& a : fleet.audit_requests()) {
    std::string_view id = a.at("object").as_string();
    if (id.starts_with("v1|ConfigMap|default|cm-"))
      ++writes[std::string(a.at("cluster").as_string()) + "|" + std::string(id)];
  }
  EXPECT_EQ(writes.size(), 40u * 25u);
  for (const auto& [key, n] : writes) EXPECT_EQ(n, 1) << key;
}

// A listener that never accepts: connections hang in the handshake until they time out.
class Blackhole {
 public:
  Blackhole() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 64);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~Blackhole() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(FleetTransport, AClusterThatIsGoneOrSilentHoldsUpNoOther) {
  SimFleet fleet;
  Blackhole silent;
  RestConfig gone = fleet.rest_config();
  gone.server = "https://127.0.0.1:1";  // refused
  RestConfig mute = fleet.rest_config();
  mute.server = "https://127.0.0.1:" + std::to_string(silent.port());
  // Several of each, so that every shared worker drives some.
  std::vector<std::unique_ptr<Client>> stuck;
  for (int i = 0; i < 4; ++i) {
    stuck.push_back(client_for(gone));
    stuck.push_back(client_for(mute));
  }
  std::atomic<int> stuck_answers{0};
  for (auto& c : stuck)
    for (int i = 0; i < 20; ++i)
      c->apply_async(config_map("never-" + std::to_string(i)), {},
                     [&stuck_answers](auto) { ++stuck_answers; });

  auto live = client_for(fleet.rest_config());
  auto start = Clock::now();
  EXPECT_EQ(apply_many(*live, "live-", 300, std::chrono::seconds(20)), 300);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(stuck_answers, 0);  // still retrying, within their attempts
  // Clients go while requests are outstanding: their callbacks are dropped, nothing hangs.
  stuck.clear();
  EXPECT_EQ(apply_many(*live, "after-", 50, std::chrono::seconds(10)), 50);
}

// What stalled an operator planting 5,000 Seeds: each Seed's engine is a set of clients dropped
// when its slice ends, sometimes with requests in flight; the slots those requests held on their
// worker must come back, or after a few thousand Seeds the workers hold every request of every
// cluster for ever.
TEST(FleetTransport, ClientsDroppedWithRequestsInFlightGiveBackTheirWorkersRoom) {
  sim::ServerOptions sim_options;
  sim_options.fleet.clusters = 1;
  sim_options.fleet.cluster_faults["edge1"].write_latency = std::chrono::seconds(60);
  SimFleet fleet(sim_options);
  RestConfig slow = fleet.rest_config("edge1");  // reads answer at once, writes in a minute
  // One client per shared worker (they are handed out in turn, at most four), each with more
  // requests in flight than a worker allows at once.
  std::vector<std::unique_ptr<Client>> dropped;
  for (int i = 0; i < 4; ++i) {
    ClientOptions options;
    options.transport.qps = 0;
    options.transport.max_in_flight = 300;
    options.transport.connect_timeout = std::chrono::milliseconds(30'000);
    dropped.push_back(std::move(Client::create(slow, options).value()));
    // Answered once, so the transport sends all it may (it sends one at a time before).
    ASSERT_TRUE(dropped.back()->get("v1", "Namespace", "", "default").ok());
  }
  for (auto& c : dropped)
    for (int r = 0; r < 300; ++r)
      c->apply_async(config_map("never-" + std::to_string(r)), {}, [](auto) {});
  // Sent until each worker is full: the count stops growing (a second client on a worker is
  // held back by the first).
  auto sent = [&] {
    uint64_t n = 0;
    for (auto& c : dropped) n += c->transport().stats().requests;
    return n;
  };
  auto start = Clock::now();
  uint64_t last = 0, now_sent = 0;
  auto steady_since = Clock::now();
  while (Clock::now() - start < std::chrono::seconds(10)) {
    now_sent = sent();
    if (now_sent != last) {
      last = now_sent;
      steady_since = Clock::now();
    } else if (now_sent >= 256 && Clock::now() - steady_since > std::chrono::milliseconds(300)) {
      break;
    }
    // sleep-ok(poll): until the requests sent stop growing
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_GE(now_sent, 256u);
  dropped.clear();
  auto live = client_for(fleet.rest_config());
  EXPECT_EQ(apply_many(*live, "after-", 50, std::chrono::seconds(10)), 50);
}

// What a process stopping on SIGTERM does: every request of every transport there is, stuck
// retrying a refused connection, hanging on a silent server, in flight or just sent, ends at once
// as Cancelled; a client made afterwards (to release a Lease) works.
TEST(FleetTransport, AbandonedRequestsEndAtOnceAndLaterClientsWork) {
  SimFleet fleet;
  Blackhole silent;
  RestConfig gone = fleet.rest_config();
  gone.server = "https://127.0.0.1:1";
  RestConfig mute = fleet.rest_config();
  mute.server = "https://127.0.0.1:" + std::to_string(silent.port());
  std::vector<std::unique_ptr<Client>> clients;
  clients.push_back(client_for(gone));
  clients.push_back(client_for(mute));
  clients.push_back(client_for(fleet.rest_config()));
  std::mutex mu;
  std::vector<ApiError> errors;
  int answers = 0;
  auto note = [&](ApiResult<json::object> r) {
    std::lock_guard lock(mu);
    ++answers;
    if (!r) errors.push_back(r.error());
  };
  for (int i = 0; i < 10; ++i)
    for (auto& c : clients) c->apply_async(config_map("cm-" + std::to_string(i)), {}, note);
  // sleep-ok(time): requests under way (retrying, hanging) before they are abandoned
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // retrying, hanging, or done
  auto start = Clock::now();
  abandon_requests();
  auto all_answered = [&] {
    std::lock_guard lock(mu);
    return answers == 30;
  };
  while (!all_answered() && Clock::now() - start < std::chrono::seconds(10))
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(answers, 30);
    EXPECT_GE(errors.size(), 20u);  // the gone and the silent cluster's, at least
    for (const ApiError& e : errors) EXPECT_EQ(e.reason, "Cancelled") << e.str();
  }
  // Asked again, an abandoned client answers at once without trying.
  auto again = clients[2]->get("v1", "ConfigMap", "default", "cm-0");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().reason, "Cancelled");
  auto later = client_for(fleet.rest_config());
  auto ns = later->get("v1", "Namespace", "", "default");
  EXPECT_TRUE(ns.ok()) << ns.error().str();
}

}  // namespace
}  // namespace planter::kube
