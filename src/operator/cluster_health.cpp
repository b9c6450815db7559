#include "operator/cluster_health.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "daemon/time_format.h"
#include "fit/cluster_taints.h"
#include "kube/transport.h"
#include "model/object.h"
#include "plan/inventory.h"
#include "plant/created_clusters.h"
#include "plant/readiness_check.h"

namespace planter::op {

namespace json = boost::json;
using Steady = std::chrono::steady_clock;

namespace {

constexpr std::string_view kProfileApiVersion = "multicluster.x-k8s.io/v1alpha1";

// The longest a probe waits for its answer.
constexpr std::chrono::milliseconds kLongestProbe{10'000};

// Where a location's kubeconfig is, as a key: a change means new credentials or a new server.
std::string location_key(const plant::KubeconfigLocation& w) {
  return fmt::format("{}\n{}\n{}\n{}\n{}", w.secret_namespace, w.secret_name, w.secret_key, w.url,
                     w.context);
}

std::string seconds_text(std::chrono::milliseconds d) {
  return fmt::format("{:g}s", std::chrono::duration<double>(d).count());
}

}  // namespace

struct ClusterHealth::Impl {
  kube::Client& management;
  const kube::Informer& clusters;
  ClusterHealthOptions options;
  const daemon::Log& log;
  EventSink events;

  // What the probes of one cluster found, written by their callbacks (on a transport's worker)
  // under `mu`, which is never held across a request: the round thread reads a copy.
  struct Answer {
    bool in_flight = false;
    std::optional<bool> answered;    // the last probe's verdict; none before one came back
    Steady::time_point last_answer;  // or since first seen
    std::string error;               // the last failure, for people
  };
  struct Shared {
    std::mutex mu;
    Answer answer;
  };
  // A cluster's probing, the round thread's own.
  struct Probe {
    std::string location;  // location_key of what `transport` was made from
    std::unique_ptr<kube::Transport> transport;
    std::shared_ptr<Shared> shared = std::make_shared<Shared>();
    std::string unprobed;   // why it cannot be probed now (its kubeconfig), once said
    std::string published;  // the ClusterProfile last written for it (its JSON), if any
  };
  std::map<std::string, Probe> probes;  // by "namespace/name"

  std::mutex stop_mu;
  std::condition_variable stop_cv;
  bool stopping = false;
  std::thread thread;

  Impl(kube::Client& m, const kube::Informer& c, ClusterHealthOptions o, const daemon::Log& l,
       EventSink e)
      : management(m), clusters(c), options(std::move(o)), log(l), events(std::move(e)) {}

  void run() {
    while (true) {
      round();
      std::unique_lock lock(stop_mu);
      if (stop_cv.wait_for(lock, options.probe_interval, [this] { return stopping; })) return;
    }
  }

  // A transport to the cluster the object's kubeconfig names, or why there is none now.
  Result<std::unique_ptr<kube::Transport>> connect(const std::string& name,
                                                   const plant::KubeconfigLocation& where) {
    std::string origin = where.secret_name.empty() ? where.url : where.secret_origin();
    Result<std::string> bytes = Error{""};
    if (!where.secret_name.empty()) {
      auto secret = management.get("v1", "Secret", where.secret_namespace, where.secret_name);
      if (!secret)
        return Error{fmt::format("reading its kubeconfig ({}): {}", origin, secret.error().str())};
      bytes = plant::kubeconfig_in_secret(*secret, where);
    } else {
      bytes = plant::kubeconfig_at_url(where);
    }
    if (!bytes) return bytes.error();
    auto config = plant::kubeconfig_rest_config(*bytes, origin, where);
    if (!config) return config.error();
    kube::TransportOptions t = options.client.transport;
    t.timeout = std::min(options.probe_interval, kLongestProbe);
    t.connect_timeout = std::min(t.connect_timeout, t.timeout);
    t.max_attempts = 1;  // a probe that fails is the news
    t.read_only = true;
    t.name = name;
    return kube::Transport::create(*config, t);
  }

  static void send(Probe& p) {
    {
      std::lock_guard lock(p.shared->mu);
      p.shared->answer.in_flight = true;
    }
    kube::HttpRequest req;
    req.path = "/readyz";
    req.accept = "text/plain";
    p.transport->send(std::move(req), [shared = p.shared](kube::ApiResult<kube::HttpResponse> r) {
      bool ok = r && r->status == 200;
      std::lock_guard lock(shared->mu);
      Answer& a = shared->answer;
      a.in_flight = false;
      a.answered = ok;
      if (ok) {
        a.last_answer = Steady::now();
        a.error.clear();
      } else {
        a.error = r ? fmt::format("GET /readyz answered {}", r->status) : r.error().str();
      }
    });
  }

  // One round: each provisioned Cluster's last answer judged (taint or untaint), then probed
  // again.
  void round() {
    auto now = Steady::now();
    std::map<std::string, json::object> seen;
    clusters.for_each([&](const json::object& o) {
      seen.emplace(
          string_field(o, {"metadata", "namespace"}) + "/" + string_field(o, {"metadata", "name"}),
          o);
    });
    for (auto it = probes.begin(); it != probes.end();)
      it = seen.contains(it->first) ? std::next(it) : probes.erase(it);
    // ClusterProfiles are published where the management cluster serves them (looked at once a
    // round: the CRD may come later).
    auto served = management.resource(std::string(kProfileApiVersion), "ClusterProfile");
    bool publishing = static_cast<bool>(served);
    for (const auto& [key, cluster] : seen) {
      auto where = plant::kubeconfig_location(cluster);
      if (!where) {  // not provisioned (yet): nothing to ask
        probes.erase(key);
        continue;
      }
      auto [it, fresh] = probes.try_emplace(key);
      Probe& p = it->second;
      Answer answer;
      {
        std::lock_guard lock(p.shared->mu);
        if (fresh) p.shared->answer.last_answer = now;
        answer = p.shared->answer;
      }
      judge(cluster, answer, now);
      if (publishing) publish(cluster, answer, p);
      if (answer.in_flight) continue;
      std::string location = location_key(*where);
      if (!p.transport || p.location != location || answer.answered == false) {
        // New credentials are read after a failure too: a rotated kubeconfig is picked up.
        p.transport.reset();
        auto made = connect(string_field(cluster, {"metadata", "name"}), *where);
        if (!made) {  // a management cluster's matter, not the cluster's: it is not judged
          if (p.unprobed != made.error().message)
            log.warn("cannot probe the cluster",
                     {{"cluster", key}, {"error", made.error().message}});
          p.unprobed = made.error().message;
          continue;
        }
        p.unprobed.clear();
        p.transport = std::move(made.value());
        p.location = std::move(location);
      }
      send(p);
    }
  }

  // Taints a cluster that has not answered for long enough, untaints one that answers.
  void judge(const json::object& cluster, const Answer& p, Steady::time_point now) {
    bool tainted = false;
    for (const fit::ClusterTaint& t : read_cluster_taints(cluster))
      tainted = tainted || t.key == fit::kUnreachableTaint;
    auto silent = std::chrono::duration_cast<std::chrono::milliseconds>(now - p.last_answer);
    if (!tainted && p.answered == false && silent >= options.unreachable_after) {
      if (set_taint(cluster, true))
        notify(cluster, "Warning", "ClusterUnreachable",
               fmt::format("its API server has not answered for {} ({}): tainted {}:NoSelect; "
                           "choices of clusters give it up once their tolerations of it end",
                           seconds_text(silent), p.error, fit::kUnreachableTaint));
    } else if (tainted && p.answered == true) {
      if (set_taint(cluster, false))
        notify(
            cluster, "Normal", "ClusterReachable",
            fmt::format("its API server answers again: taint {} removed", fit::kUnreachableTaint));
    }
  }

  // The ClusterProfile of a provisioned Cluster (KEP-4322), next to it under its name: its
  // labels, planter as its cluster manager, ControlPlaneHealthy from the probes. Written when it
  // changes (server-side apply as planter-cluster-health). The Cluster owns it: the garbage
  // collector deletes it with the Cluster, even while no operator runs.
  void publish(const json::object& cluster, const Answer& answer, Probe& p) {
    if (!answer.answered) return;  // not probed yet: nothing to say
    std::string ns = string_field(cluster, {"metadata", "namespace"});
    std::string name = string_field(cluster, {"metadata", "name"});
    json::object labels;
    if (const json::value* l = find_path(cluster, {"metadata", "labels"}); l && l->is_object())
      labels = l->as_object();
    labels["x-k8s.io/cluster-manager"] = "planter";
    bool healthy = *answer.answered;
    json::array owners;
    if (std::string uid = string_field(cluster, {"metadata", "uid"}); !uid.empty())
      owners.push_back(json::object{{"apiVersion", kClusterApiVersion},
                                    {"kind", "Cluster"},
                                    {"name", name},
                                    {"uid", uid},
                                    {"controller", true}});
    json::object profile{
        {"apiVersion", kProfileApiVersion},
        {"kind", "ClusterProfile"},
        {"metadata",
         {{"name", name},
          {"namespace", ns},
          {"labels", std::move(labels)},
          {"ownerReferences", std::move(owners)}}},
        {"spec", {{"displayName", name}, {"clusterManager", {{"name", "planter"}}}}}};
    json::object condition{{"type", "ControlPlaneHealthy"},
                           {"status", healthy ? "True" : "False"},
                           {"reason", healthy ? "Answered" : "NotAnswered"},
                           {"message", healthy ? "GET /readyz answered 200" : answer.error}};
    std::string wanted = json::serialize(profile) + json::serialize(condition);
    if (wanted == p.published) return;
    kube::ApplyOptions ao;
    ao.field_manager = "planter-cluster-health";
    ao.force = true;
    auto made = management.apply(profile, ao);
    if (made) {
      condition["lastTransitionTime"] = daemon::rfc3339(std::chrono::system_clock::now(), false);
      json::object status{{"apiVersion", kProfileApiVersion},
                          {"kind", "ClusterProfile"},
                          {"metadata", {{"name", name}, {"namespace", ns}}},
                          {"status", {{"conditions", json::array{std::move(condition)}}}}};
      auto written = management.apply_status(status, ao);
      if (written) {
        p.published = std::move(wanted);
        return;
      }
      made = written;
    }
    log.warn("cannot publish the cluster's ClusterProfile",
             {{"cluster", ns + "/" + name}, {"error", made.error().str()}});
  }

  bool set_taint(const json::object& cluster, bool present) {
    json::array taints;
    if (const json::value* list = find_path(cluster, {"spec", "taints"}); list && list->is_array())
      for (const json::value& t : list->as_array())
        if (!t.is_object() || string_field(t.as_object(), {"key"}) != fit::kUnreachableTaint)
          taints.push_back(t);
    if (present)
      taints.push_back(
          json::object{{"key", fit::kUnreachableTaint},
                       {"effect", "NoSelect"},
                       {"timeAdded", daemon::rfc3339(std::chrono::system_clock::now(), false)}});
    json::object patch{
        {"metadata", {{"resourceVersion", string_field(cluster, {"metadata", "resourceVersion"})}}},
        {"spec", {{"taints", std::move(taints)}}}};
    std::string ns = string_field(cluster, {"metadata", "namespace"});
    std::string name = string_field(cluster, {"metadata", "name"});
    auto r = management.merge_patch(std::string(kClusterApiVersion), "Cluster", ns, name, patch);
    if (!r) {
      if (!r.error().conflict() && !r.error().not_found())
        log.warn("cannot write the cluster's taints",
                 {{"cluster", ns + "/" + name}, {"error", r.error().str()}});
      return false;  // a conflict: the next round reads it again
    }
    return true;
  }

  void notify(const json::object& cluster, std::string_view type, std::string_view reason,
              const std::string& message) {
    std::string who = string_field(cluster, {"metadata", "namespace"}) + "/" +
                      string_field(cluster, {"metadata", "name"});
    if (type == "Warning")
      log.warn(std::string(reason), {{"cluster", who}, {"message", message}});
    else
      log.info(std::string(reason), {{"cluster", who}, {"message", message}});
    if (events) events(cluster, type, reason, message);
  }
};

ClusterHealth::ClusterHealth(kube::Client& management, const kube::Informer& clusters,
                             ClusterHealthOptions options, const daemon::Log& log, EventSink events)
    : impl_(std::make_unique<Impl>(management, clusters, std::move(options), log,
                                   std::move(events))) {}

ClusterHealth::~ClusterHealth() {
  stop();
}

void ClusterHealth::start() {
  if (impl_->thread.joinable() || impl_->options.unreachable_after.count() <= 0) return;
  impl_->thread = std::thread([this] { impl_->run(); });
}

void ClusterHealth::stop() {
  {
    std::lock_guard lock(impl_->stop_mu);
    impl_->stopping = true;
  }
  impl_->stop_cv.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->probes.clear();  // their transports drop what is outstanding
}

}  // namespace planter::op
