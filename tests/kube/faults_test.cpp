// The client under the sim's fault injection: injected 429/503/500 answers and watch streams
// that end every 2 seconds. The audit log (one line per change that really happened) is the
// witness: every apply lands exactly once, and the informer sees every change once.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "kube/client.h"
#include "kube/informer.h"
#include "kube/sim_fleet.h"

namespace planter::kube {
namespace {

namespace json = boost::json;
using testing::SimFleet;

sim::ServerOptions faulty() {
  sim::ServerOptions options;
  options.fleet.cluster.faults.error_rate = 0.2;
  options.fleet.cluster.faults.watch_drop = std::chrono::seconds(2);
  options.fleet.cluster.history_limit = 200;
  return options;
}

json::object config_map(const std::string& ns, const std::string& name, int seq) {
  return json::object{{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"metadata", {{"name", name}, {"namespace", ns}}},
                      {"data", {{"seq", std::to_string(seq)}}}};
}

std::map<std::string, int> audit_writes(const SimFleet& fleet, const std::string& ns) {
  std::map<std::string, int> out;
  std::string prefix = "v1|ConfigMap|" + ns + "|";
  for (const json::object& a : fleet.audit_requests()) {
    std::string_view id = a.at("object").as_string();
    if (id.starts_with(prefix)) ++out[std::string(id.substr(prefix.size()))];
  }
  return out;
}

std::unique_ptr<Client> connect(const SimFleet& fleet, int in_flight = 64) {
  ClientOptions options;
  options.transport.max_in_flight = in_flight;
  options.transport.qps = 0;
  auto c = Client::create(fleet.rest_config(), options);
  EXPECT_TRUE(c.ok());
  return std::move(c.value());
}

TEST(KubeFaults, AThousandAppliesLandExactlyOnceUnderInjectedErrors) {
  SimFleet fleet(faulty());
  auto client = connect(fleet);
  ASSERT_TRUE(
      client->apply({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "load"}}}})
          .ok());
  constexpr int kN = 1000;
  std::atomic<int> ok{0}, left{kN};
  std::mutex mu;
  std::vector<std::string> failures;
  std::promise<void> all;
  for (int i = 0; i < kN; ++i)
    client->apply_async(config_map("load", "cm-" + std::to_string(i), 0), {}, [&](auto r) {
      if (r.ok()) {
        ++ok;
      } else {
        std::lock_guard lock(mu);
        failures.push_back(r.error().str());
      }
      if (--left == 0) all.set_value();
    });
  all.get_future().wait();
  EXPECT_EQ(ok, kN) << (failures.empty() ? "" : failures.front());
  auto writes = audit_writes(fleet, "load");
  EXPECT_EQ(writes.size(), static_cast<size_t>(kN));
  for (const auto& [name, n] : writes) EXPECT_EQ(n, 1) << name << " was written " << n << " times";
  TransportStats s = client->transport().stats();
  EXPECT_GT(s.retries, 100u);  // the premise: about one request in five was refused
}

struct Seen {
  std::mutex mu;
  // The resourceVersions each object was reported at (the sim's are increasing integers).
  std::map<std::string, std::vector<uint64_t>> versions;
  std::map<std::string, int> events;

  void record(const json::object& o) {
    std::string name(o.at("metadata").at("name").as_string());
    uint64_t rv = std::stoull(std::string(o.at("metadata").at("resourceVersion").as_string()));
    std::lock_guard lock(mu);
    versions[name].push_back(rv);
    ++events[name];
  }
};

// Every object's reports go forward: no repeats, nothing out of order.
void expect_forward_only(Seen& seen) {
  std::lock_guard lock(seen.mu);
  for (const auto& [name, rvs] : seen.versions)
    for (size_t i = 1; i < rvs.size(); ++i)
      ASSERT_LT(rvs[i - 1], rvs[i])
          << name << " was reported at resourceVersion " << rvs[i - 1] << " and then at " << rvs[i];
}

void wait_until_cache_has(const Informer& informer, const std::string& ns,
                          const std::map<std::string, int>& want) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    bool all = true;
    for (const auto& [name, seq] : want) {
      auto o = informer.get(ns, name);
      all = all && o && o->at("data").at("seq").as_string() == std::to_string(seq);
      if (!all) break;
    }
    if (all) return;
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "the informer's cache did not catch up within 30 s";
}

TEST(KubeFaults, AnInformerSeesEveryChangeOnceAcrossDroppedStreamsAndA410) {
  SimFleet fleet(faulty());
  auto writer = connect(fleet);
  auto watcher = connect(fleet);
  ASSERT_TRUE(
      writer
          ->apply(
              {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "watched"}}}})
          .ok());
  Seen seen;
  Informer informer(
      *watcher, {"v1", "ConfigMap", "watched"},
      {.added = [&](const json::object& o) { seen.record(o); },
       .updated = [&](const json::object&, const json::object& o) { seen.record(o); }});
  informer.start();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!informer.synced() && std::chrono::steady_clock::now() < deadline)
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(informer.synced());

  // Phase 1: 40 objects written 10 times each, a round at a time (a round takes about a
  // second: some of its writes wait out a Retry-After): streams end several times, and the
  // informer resumes each time from where it was.
  std::map<std::string, int> last;
  for (int round = 0; round < 10; ++round) {
    std::atomic<int> left{40};
    std::promise<void> done;
    for (int i = 0; i < 40; ++i) {
      std::string name = "obj-" + std::to_string(i);
      last[name] = round;
      writer->apply_async(config_map("watched", name, round), {}, [&](auto r) {
        EXPECT_TRUE(r.ok());
        if (--left == 0) done.set_value();
      });
    }
    done.get_future().wait();
  }
  wait_until_cache_has(informer, "watched", last);
  InformerStats phase1 = informer.stats();
  ASSERT_GE(phase1.watches, 3u) << "premise: the sim ended the watch stream at least twice";
  ASSERT_GE(phase1.events, 400u);
  ASSERT_EQ(phase1.gone, 0u) << "premise: no 410 in phase 1";
  expect_forward_only(seen);
  auto writes = audit_writes(fleet, "watched");
  {
    std::lock_guard lock(seen.mu);
    for (const auto& [name, n] : writes)
      EXPECT_EQ(seen.events[name], n)
          << name << ": " << n << " changes in the audit log, " << seen.events[name] << " reported";
  }

  // Phase 2: the watcher stalls (its transport thread is busy) for more than 2 s, so its stream
  // ends, and stays stalled while 400 more changes pass, more than the 200 the sim remembers.
  // Resuming then gets 410 Gone; the informer lists again and reports what changed.
  std::promise<void> stalled, release;
  std::shared_future<void> released = release.get_future().share();
  watcher->transport().post([&stalled, released] {
    stalled.set_value();
    released.wait();
  });
  stalled.get_future().wait();
  // sleep-ok(time): a watcher stalled past the sim's 2 s stream timeout
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  std::atomic<int> left{400};
  std::promise<void> burst;
  for (int round = 10; round < 20; ++round)
    for (int i = 0; i < 40; ++i) {
      std::string name = "obj-" + std::to_string(i);
      last[name] = round;
      writer->apply_async(config_map("watched", name, round), {}, [&, name, round](auto r) {
        EXPECT_TRUE(r.ok());
        if (--left == 0) burst.set_value();
      });
    }
  burst.get_future().wait();
  release.set_value();
  // Retried writes of the burst land in any order; one last write per object settles it.
  std::atomic<int> settling{40};
  std::promise<void> settled;
  for (auto& [name, seq] : last) {
    seq += 100;
    writer->apply_async(config_map("watched", name, seq), {}, [&](auto r) {
      EXPECT_TRUE(r.ok());
      if (--settling == 0) settled.set_value();
    });
  }
  settled.get_future().wait();
  wait_until_cache_has(informer, "watched", last);
  EXPECT_GE(informer.stats().gone, 1u);
  expect_forward_only(seen);
  auto list = writer->list({"v1", "ConfigMap", "watched"});
  ASSERT_TRUE(list.ok());
  for (const json::object& o : list->items) {
    auto cached = informer.get("watched", std::string(o.at("metadata").at("name").as_string()));
    ASSERT_TRUE(cached);
    EXPECT_EQ(cached->at("metadata").at("resourceVersion"), o.at("metadata").at("resourceVersion"));
  }
  informer.stop();
}

}  // namespace
}  // namespace planter::kube
