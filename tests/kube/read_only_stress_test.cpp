// `planter diff` (and the preflight and the drift check, which send the same requests) cannot
// write: 2,000 diffs against a sim failing 30% of its requests, over HTTP/2 and HTTP/1.1, with
// the client's retries, leave no write in the audit log. The issue saw three real applies during
// a diff once; whatever caused it, the read-only transport refuses any request that is not a GET
// or a dry run before it is sent (kube/transport.h).
#include <gtest/gtest.h>

#include <atomic>
#include <iostream>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "kube/sim_fleet.h"
#include "plant/diff.h"
#include "sanitized.h"
#include "unit/test_support.h"

namespace planter::testing {
namespace {

namespace json = boost::json;

constexpr const char* kSeed = R"(apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: default}
data: {mode: fast}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
)";

void diff_many(bool http2, int runs) {
  uint64_t seed = std::getenv("PLANTER_TEST_SEED") ? std::stoull(std::getenv("PLANTER_TEST_SEED"))
                                                   : std::random_device{}();
  std::cout << "PLANTER_TEST_SEED=" << seed << std::endl;
  sim::ServerOptions options;
  options.fault_seed = seed;
  options.fleet.cluster.faults.error_rate = 0.3;
  SimFleet fleet(options);
  PlanOutcome planned = plan_yaml(kSeed);
  ASSERT_TRUE(planned.ok()) << planned.diags.str();
  plant::DiffOptions diff;
  diff.seed_name = "stress";
  diff.client.transport.http2 = http2;
  diff.client.transport.backoff_base = std::chrono::milliseconds(1);
  diff.client.transport.backoff_cap = std::chrono::milliseconds(4);
  std::map<std::string, kube::RestConfig> reachable{{"SELF", fleet.rest_config()}};
  // Many at once, as many users' diffs would be: the sim answers a 429 or 503 with Retry-After
  // (a second), which the client honours, so one after the other would take an hour.
  std::atomic<size_t> answered = 0;
  std::atomic<int> next = 0;
  std::vector<std::thread> workers;
  for (int w = 0; w < 64; ++w)
    workers.emplace_back([&] {
      plant::DiffOptions mine = diff;
      while (next++ < runs) {
        mine.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        for (const plant::ObjectDiff& d : plant::diff_seed(planned.plan, reachable, mine))
          answered += d.state == plant::ObjectDiff::State::kCreated;
      }
    });
  for (std::thread& t : workers) t.join();
  // Most dry runs got through the faults (each answered "would be created"), and not one write
  // of the client's (user admin) reached the store: the audit log lists writes only, the sim's
  // controllers' among them.
  EXPECT_GT(answered.load(), static_cast<size_t>(runs));
  std::vector<json::object> writes;
  for (json::object& w : fleet.audit_requests())
    if (w.at("user") == "admin") writes.push_back(std::move(w));
  EXPECT_TRUE(writes.empty()) << writes.size() << " writes, the first "
                              << json::serialize(writes.front());
}

int runs() {
  return kSanitized ? 200 : 2000;
}

TEST(ReadOnlyStress, TwoThousandDiffsUnderFaultsWriteNothingOverHttp2) {
  diff_many(true, runs());
}

TEST(ReadOnlyStress, TwoThousandDiffsUnderFaultsWriteNothingOverHttp1) {
  diff_many(false, runs());
}

}  // namespace
}  // namespace planter::testing
