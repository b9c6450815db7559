#include "daemon/leader.h"

#include <fmt/format.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <condition_variable>
#include <mutex>

#include "daemon/time_format.h"

namespace planter::daemon {

namespace json = boost::json;
using Steady = std::chrono::steady_clock;

namespace {

constexpr std::string_view kLeaseApiVersion = "coordination.k8s.io/v1";

// A MicroTime: RFC 3339 with microseconds.
std::string micro_time(std::chrono::system_clock::time_point t) {
  return daemon::rfc3339(t, true);
}

int64_t seconds_of(std::chrono::milliseconds d) {
  return std::max<int64_t>(1, (d.count() + 999) / 1000);
}

}  // namespace

bool sleep_for(std::stop_token stop, std::chrono::milliseconds d) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  cv.wait_for(lock, stop, d, [] { return false; });
  return !stop.stop_requested();
}

LeaderElector::LeaderElector(kube::Client& client, LeaseOptions options, Note note)
    : client_(client), options_(std::move(options)), note_(std::move(note)) {
  if (options_.identity.empty()) {
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    options_.identity = fmt::format("{}_{}", host, getpid());
  }
}

std::string LeaderElector::blocker() {
  auto ns = client_.get("v1", "Namespace", "", options_.ns);
  if (!ns && ns.error().not_found())
    return fmt::format(
        "the Lease's namespace {} does not exist: create it (kubectl create namespace "
        "{}) or choose another with --leader-elect-resource-namespace",
        options_.ns, options_.ns);
  auto lease = client_.get(std::string(kLeaseApiVersion), "Lease", options_.ns, options_.name);
  if (!lease && (lease.error().forbidden() || lease.error().unusable_config()))
    return fmt::format("cannot read the Lease {}/{}: {}", options_.ns, options_.name,
                       lease.error().str());
  return {};
}

bool LeaderElector::try_acquire_or_renew() {
  auto now = std::chrono::system_clock::now();
  auto got = client_.get(std::string(kLeaseApiVersion), "Lease", options_.ns, options_.name);
  if (!got) {
    if (!got.error().not_found()) {
      note_("cannot read the Lease: " + got.error().str());
      return false;
    }
    json::object lease{{"apiVersion", kLeaseApiVersion},
                       {"kind", "Lease"},
                       {"metadata", {{"name", options_.name}, {"namespace", options_.ns}}},
                       {"spec",
                        {{"holderIdentity", options_.identity},
                         {"leaseDurationSeconds", seconds_of(options_.lease_duration)},
                         {"acquireTime", micro_time(now)},
                         {"renewTime", micro_time(now)},
                         {"leaseTransitions", 0}}}};
    auto created = client_.create(lease);
    if (!created) note_("cannot create the Lease: " + created.error().str());
    return static_cast<bool>(created);
  }
  json::object lease = std::move(got.value());
  json::object spec;
  if (auto* s = lease.if_contains("spec"); s && s->is_object()) spec = s->as_object();
  std::string record = json::serialize(spec);
  if (record != observed_) {
    observed_ = record;
    observed_at_ = Steady::now();
  }
  std::string holder;
  if (auto* h = spec.if_contains("holderIdentity"); h && h->is_string()) holder = h->as_string();
  std::chrono::milliseconds duration = options_.lease_duration;
  if (auto* d = spec.if_contains("leaseDurationSeconds"); d && d->is_int64())
    duration = std::chrono::seconds(d->as_int64());
  if (holder != last_holder_) {
    if (!holder.empty() && holder != options_.identity) note_("the Lease is held by " + holder);
    last_holder_ = holder;
  }
  if (!holder.empty() && holder != options_.identity && Steady::now() < observed_at_ + duration)
    return false;
  int64_t transitions = 0;
  if (auto* t = spec.if_contains("leaseTransitions"); t && t->is_int64())
    transitions = t->as_int64();
  if (holder != options_.identity) {
    spec["acquireTime"] = micro_time(now);
    spec["leaseTransitions"] = transitions + 1;
  }
  spec["holderIdentity"] = options_.identity;
  spec["leaseDurationSeconds"] = seconds_of(options_.lease_duration);
  spec["renewTime"] = micro_time(now);
  lease["spec"] = spec;
  auto updated = client_.update(lease);  // carries the resourceVersion read above
  if (!updated) {
    if (!updated.error().conflict()) note_("cannot update the Lease: " + updated.error().str());
    return false;
  }
  observed_ = json::serialize(spec);
  observed_at_ = Steady::now();
  return true;
}

bool LeaderElector::acquire(std::stop_token stop) {
  while (!stop.stop_requested()) {
    if (try_acquire_or_renew()) return true;
    if (!sleep_for(stop, options_.retry_period)) break;
  }
  return false;
}

bool LeaderElector::hold(std::stop_token stop) {
  auto renewed = Steady::now();
  while (sleep_for(stop, options_.retry_period)) {
    if (try_acquire_or_renew()) {
      renewed = Steady::now();
    } else if (Steady::now() - renewed >= options_.renew_deadline) {
      return false;
    }
  }
  return true;
}

void LeaderElector::release(kube::Client& client) {
  auto got = client.get(std::string(kLeaseApiVersion), "Lease", options_.ns, options_.name);
  if (!got) return;
  json::object lease = std::move(got.value());
  auto* spec = lease.if_contains("spec");
  if (!spec || !spec->is_object()) return;
  auto* holder = spec->as_object().if_contains("holderIdentity");
  if (!holder || !holder->is_string() || holder->as_string() != options_.identity) return;
  spec->as_object()["holderIdentity"] = "";
  spec->as_object()["leaseDurationSeconds"] = 1;
  spec->as_object()["renewTime"] = micro_time(std::chrono::system_clock::now());
  if (client.update(lease)) note_("released the Lease");
}

}  // namespace planter::daemon
