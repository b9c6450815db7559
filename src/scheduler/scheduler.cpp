#include "scheduler/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "daemon/time_format.h"
#include "kube/informer.h"
#include "model/object.h"
#include "scheduler/gang.h"

namespace planter::scheduler {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

std::string now_rfc3339() {
  return daemon::rfc3339(std::chrono::system_clock::now(), false);
}

bool annotated(const json::object& o, std::string_view key) {
  const json::string* v = find_string(o, {"metadata", "annotations", key});
  return v && *v == "true";
}

int64_t integer(const json::object& o, std::initializer_list<std::string_view> path,
                int64_t fallback) {
  const json::value* v = find_path(o, path);
  return v && v->is_int64() ? v->as_int64() : fallback;
}

// The pods of one scheduling unit: a gang (one PodGroup) or a single pod.
struct Unit {
  std::string key;  // "ns/group", or "" for a single pod
  std::string ns, group;
  std::vector<const fit::PodInfo*> pods;
  std::string oldest;  // creationTimestamp of its oldest pod, for queue order
};

}  // namespace

struct Scheduler::Impl {
  kube::Client& client;
  SchedulerOptions options;
  SchedulerStats stats;
  std::unique_ptr<kube::Informer> pods, nodes, groups;
  std::atomic<bool> pods_synced{false}, nodes_synced{false};
  std::mutex mu;
  std::condition_variable cv;
  bool dirty = true;
  // Per pod uid: when first seen pending; the reason last written on it.
  std::map<std::string, Clock::time_point> first_seen;
  std::map<std::string, std::string> last_why;
  // Per gang: since when it is partly bound and the rest does not fit; what its status says.
  std::map<std::string, Clock::time_point> partial_since;
  std::map<std::string, std::string> group_status;
  std::mt19937 names{std::random_device{}()};

  Impl(kube::Client& c, SchedulerOptions o) : client(c), options(std::move(o)) {}

  // Whether the Node is in the informer's cache now (read in place, not copied).
  bool node_exists(const std::string& name) const {
    bool found = false;
    nodes->inspect("", name, [&](const json::object* n) { found = n != nullptr; });
    return found;
  }

  void log(const std::string& m) {
    if (options.log) options.log(m);
  }
  void mark() {
    {
      std::lock_guard lock(mu);
      dirty = true;
    }
    cv.notify_all();
  }

  std::unique_ptr<kube::Informer> informer(const std::string& api_version, const std::string& kind,
                                           std::atomic<bool>* synced) {
    kube::InformerHandlers h;
    h.added = [this](const json::object&) { mark(); };
    h.updated = [this](const json::object&, const json::object&) { mark(); };
    h.deleted = [this](const json::object&) { mark(); };
    h.synced = [this, synced] {
      if (synced) *synced = true;
      mark();
    };
    return std::make_unique<kube::Informer>(
        client, kube::ResourceQuery{api_version, kind, "", "", ""}, std::move(h));
  }

  void run(std::stop_token stop) {
    pods = informer("v1", "Pod", &pods_synced);
    nodes = informer("v1", "Node", &nodes_synced);
    groups = informer(std::string(kPodGroupApiVersion), "PodGroup", nullptr);
    pods->start();
    nodes->start();
    groups->start();
    std::stop_callback wake(stop, [this] { mark(); });
    std::chrono::milliseconds next{3'600'000};
    while (!stop.stop_requested()) {
      {
        std::unique_lock lock(mu);
        cv.wait_for(lock, next, [&] { return dirty || stop.stop_requested(); });
        dirty = false;
      }
      if (stop.stop_requested()) break;
      if (!pods_synced || !nodes_synced) continue;
      next = cycle(stop);
    }
    groups->stop();
    nodes->stop();
    pods->stop();
  }

  // One pass over everything pending; returns when to look again without a change (a gang's
  // timeout).
  std::chrono::milliseconds cycle(const std::stop_token& stop) {
    ++stats.cycles;
    // Read in place from the informers' caches: nothing is copied but what pending pods need.
    std::map<std::string, json::object> group_objects;  // ns/name
    groups->for_each([&](const json::object& g) {
      group_objects[string_field(g, {"metadata", "namespace"}) + "/" +
                    string_field(g, {"metadata", "name"})] = g;
    });
    fit::Snapshot view;
    nodes->for_each([&](const json::object& n) { view.add_node(n); });
    std::vector<fit::PodInfo> pending;
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> bound;  // gang -> pods
    std::set<std::string> seen;
    pods->for_each([&](const json::object& p) {
      std::string phase = string_field(p, {"status", "phase"});
      if (phase == "Succeeded" || phase == "Failed") return;
      const json::string* node = find_string(p, {"spec", "nodeName"});
      if (node && !node->empty()) {
        view.add_pod(p);
        // A pod on its way out holds its room, but is no member of its gang any more.
        if (find_path(p, {"metadata", "deletionTimestamp"})) return;
        if (const json::string* group = find_string(p, {"metadata", "labels", kPodGroupLabelKey}))
          bound[string_field(p, {"metadata", "namespace"}) + "/" + std::string(*group)]
              .emplace_back(string_field(p, {"metadata", "name"}), std::string(*node));
        return;
      }
      const json::string* scheduler = find_string(p, {"spec", "schedulerName"});
      if (!scheduler || *scheduler != options.name) return;
      if (find_path(p, {"metadata", "deletionTimestamp"})) return;
      pending.push_back(fit::PodInfo::from(p));
      seen.insert(pending.back().uid);
      first_seen.try_emplace(pending.back().uid, Clock::now());
    });
    std::erase_if(first_seen, [&](const auto& e) { return !seen.contains(e.first); });
    std::erase_if(last_why, [&](const auto& e) { return !seen.contains(e.first); });
    stats.pending = static_cast<int64_t>(pending.size());

    std::map<std::string, Unit> units;
    for (const fit::PodInfo& p : pending) {
      std::string key = p.group.empty() ? "pod:" + p.id() : p.ns + "/" + p.group;
      Unit& u = units[key];
      u.key = p.group.empty() ? "" : key;
      u.ns = p.ns;
      u.group = p.group;
      u.pods.push_back(&p);
      if (u.oldest.empty() || p.created < u.oldest) u.oldest = p.created;
    }
    std::vector<Unit*> queue;
    for (auto& [key, u] : units) queue.push_back(&u);
    std::stable_sort(queue.begin(), queue.end(),
                     [](const Unit* a, const Unit* b) { return a->oldest < b->oldest; });
    std::set<std::string> isolated;
    for (const auto& [key, g] : group_objects)
      if (annotated(g, kIsolateAnnotation)) isolated.insert(key);

    // A gang bound (partly or whole) to a node that no longer exists is released: all or nothing
    // holds for where it runs too, and its status never says Scheduled on a missing node.
    for (auto it = bound.begin(); it != bound.end();) {
      auto g = group_objects.find(it->first);
      std::string gone;
      for (const auto& [pod, node] : it->second)
        if (gone.empty() && !node_exists(node)) gone = node;
      if (g == group_objects.end() || gone.empty()) {
        ++it;
        continue;
      }
      release_gang_of_missing_node(it->first, g->second, it->second, gone);
      it = bound.erase(it);
    }

    std::chrono::milliseconds next{3'600'000};
    for (Unit* u : queue) {
      if (stop.stop_requested()) break;
      GroupPolicy policy;
      const json::object* group = nullptr;
      if (!u->key.empty()) {
        auto g = group_objects.find(u->key);
        if (g == group_objects.end()) {
          unschedulable(*u, fmt::format("PodGroup {} not found (scheduling.x-k8s.io/v1alpha1); "
                                        "its pods wait for it",
                                        u->key));
          continue;
        }
        group = &g->second;
        policy.name = u->key;
        policy.min_member = integer(*group, {"spec", "minMember"}, 1);
        policy.colocate = annotated(*group, kSameNodeAnnotation);
        policy.isolate = annotated(*group, kIsolateAnnotation);
        auto b = bound.find(u->key);
        if (b != bound.end()) {
          policy.bound = static_cast<int64_t>(b->second.size());
          policy.bound_node = b->second.front().second;
        }
        if (!policy.colocate) policy.bound_node.clear();
      }
      GroupDecision d = decide_group(view, u->pods, policy, isolated);
      if (!d.bind) {
        unschedulable(*u, d.why);
        if (group) {
          write_group_status(u->key, *group, policy.bound, "Pending", d.why);
          if (policy.bound > 0 && policy.bound < policy.min_member) {
            auto since = partial_since.try_emplace(u->key, Clock::now()).first->second;
            // An int32 in scheduler-plugins' API; clamped, so that the time point cannot
            // overflow (9223372037 s in nanoseconds wrapped below zero: released at once).
            auto timeout = std::chrono::seconds(
                std::clamp<int64_t>(integer(*group, {"spec", "scheduleTimeoutSeconds"}, 60), 0,
                                    std::numeric_limits<int32_t>::max()));
            if (Clock::now() - since >= timeout) {
              release_partial_gang(u->key, bound[u->key]);
              partial_since.erase(u->key);
            } else {
              next = std::min(next, std::chrono::duration_cast<std::chrono::milliseconds>(
                                        since + timeout - Clock::now()) +
                                        std::chrono::milliseconds(10));
            }
          }
        }
        continue;
      }
      partial_since.erase(u->key);
      int64_t placed = 0;
      std::string gone;  // a node of the decision that went away while the gang was bound
      for (const auto& [pod, node] : d.bindings) {
        if (placed > 0 && options.bind_interval.count() > 0)
          std::this_thread::sleep_for(options.bind_interval);
        if (!node_exists(node)) {
          gone = node;
          break;
        }
        if (bind(*pod, node)) {
          ++placed;
          bound[u->key].emplace_back(pod->name, node);
          if (auto n = view.index(node))
            view.assume(*n, std::shared_ptr<const fit::PodInfo>(std::shared_ptr<void>(), pod));
        }
      }
      if (group && !gone.empty()) {
        release_gang_of_missing_node(u->key, *group, bound[u->key], gone);
        continue;
      }
      if (group)
        write_group_status(u->key, *group, policy.bound + placed,
                           policy.bound + placed >= policy.min_member ? "Scheduled" : "Scheduling",
                           "");
    }
    return next;
  }

  bool bind(const fit::PodInfo& pod, const std::string& node) {
    auto r = client.bind(pod.ns, pod.name, node);
    if (!r) {
      ++stats.errors;
      log(fmt::format("binding {} to {}: {}", pod.id(), node, r.error().str()));
      mark();  // look again: the cache may be behind
      return false;
    }
    ++stats.scheduled;
    if (auto it = first_seen.find(pod.uid); it != first_seen.end()) {
      double s = std::chrono::duration<double>(Clock::now() - it->second).count();
      size_t b = 0;
      while (b < std::size(SchedulerStats::kBuckets) && s > SchedulerStats::kBuckets[b]) ++b;
      ++stats.bucket_counts[b];
      stats.e2e_micros_sum += static_cast<uint64_t>(s * 1e6);
    }
    event(pod.ns, "Pod", "v1", pod.name, pod.uid, "Normal", "Scheduled",
          fmt::format("Successfully assigned {} to {}", pod.id(), node));
    return true;
  }

  // PodScheduled=False with the reason, and a FailedScheduling Event, when the reason changed.
  void unschedulable(const Unit& u, const std::string& why) {
    for (const fit::PodInfo* p : u.pods) {
      std::string& last = last_why[p->uid];
      if (last == why) continue;
      last = why;
      ++stats.unschedulable;
      json::object patch{
          {"status",
           {{"conditions", json::array{json::object{{"type", "PodScheduled"},
                                                    {"status", "False"},
                                                    {"reason", "Unschedulable"},
                                                    {"message", why},
                                                    {"lastTransitionTime", now_rfc3339()}}}}}}};
      auto r = client.merge_patch("v1", "Pod", p->ns, p->name, patch, true);
      if (!r && !r.error().not_found())
        log(fmt::format("status of {}: {}", p->id(), r.error().str()));
      event(p->ns, "Pod", "v1", p->name, p->uid, "Warning", "FailedScheduling", why);
    }
  }

  void write_group_status(const std::string& key, const json::object& group, int64_t scheduled,
                          const std::string& phase, const std::string& why) {
    std::string state = fmt::format("{}|{}|{}", phase, scheduled, why);
    if (group_status[key] == state) return;
    group_status[key] = state;
    std::string ns = string_field(group, {"metadata", "namespace"});
    std::string name = string_field(group, {"metadata", "name"});
    json::object status{{"phase", phase}, {"scheduled", scheduled}};
    if (phase != "Pending") status["scheduleStartTime"] = now_rfc3339();
    auto r = client.merge_patch(std::string(kPodGroupApiVersion), "PodGroup", ns, name,
                                json::object{{"status", std::move(status)}}, true);
    if (!r && !r.error().not_found())
      log(fmt::format("status of PodGroup {}: {}", key, r.error().str()));
    if (!why.empty())
      event(ns, "PodGroup", std::string(kPodGroupApiVersion), name,
            string_field(group, {"metadata", "uid"}), "Warning", "FailedScheduling", why);
  }

  // Deletes the bound pods of the gang `key` ("ns/group"): (pod name, node) pairs.
  void release_gang(const std::string& key,
                    const std::vector<std::pair<std::string, std::string>>& pods) {
    std::string ns = key.substr(0, key.find('/'));
    for (const auto& [name, _] : pods) {
      auto r = client.remove("v1", "Pod", ns, name);
      if (!r && !r.error().not_found())
        log(fmt::format("deleting {}/{}: {}", ns, name, r.error().str()));
    }
    ++stats.gangs_released;
  }

  // A gang with pods bound to `node`, which no longer exists (deleted while it was being bound,
  // or after): every bound pod of it goes, wherever it runs, so that the gang starts again whole
  // elsewhere (their controllers make them again); the PodGroup says why.
  void release_gang_of_missing_node(const std::string& key, const json::object& group,
                                    const std::vector<std::pair<std::string, std::string>>& pods,
                                    const std::string& node) {
    release_gang(key, pods);
    std::string why = fmt::format(
        "pod group {}: node {} went away with {} of its pod(s) bound; released the gang ({} "
        "pod(s) deleted) to place it whole again",
        key, node, pods.size(), pods.size());
    log(why);
    write_group_status(key, group, 0, "Pending", why);
  }

  // A gang left partly bound whose rest does not fit within its timeout: its bound pods go, so
  // that it holds no room it cannot use; their controllers make them again.
  void release_partial_gang(const std::string& key,
                            const std::vector<std::pair<std::string, std::string>>& pods) {
    release_gang(key, pods);
    log(
        fmt::format("pod group {}: {} pod(s) bound but the rest did not fit within its "
                    "scheduleTimeoutSeconds; deleted them",
                    key, pods.size()));
  }

  void event(const std::string& ns, const std::string& kind, const std::string& api_version,
             const std::string& name, const std::string& uid, const std::string& type,
             const std::string& reason, const std::string& message) {
    std::string ts = now_rfc3339();
    json::object e{
        {"apiVersion", "v1"},
        {"kind", "Event"},
        {"metadata", {{"name", fmt::format("{}.{:016x}", name, names())}, {"namespace", ns}}},
        {"involvedObject",
         {{"apiVersion", api_version},
          {"kind", kind},
          {"namespace", ns},
          {"name", name},
          {"uid", uid}}},
        {"type", type},
        {"reason", reason},
        {"message", message},
        {"source", {{"component", options.name}}},
        {"reportingComponent", options.name},
        {"firstTimestamp", ts},
        {"lastTimestamp", ts},
        {"count", 1}};
    auto r = client.create(e);
    if (!r) log(fmt::format("event for {} {}/{}: {}", kind, ns, name, r.error().str()));
  }
};

Scheduler::Scheduler(kube::Client& client, SchedulerOptions options)
    : impl_(std::make_unique<Impl>(client, std::move(options))) {}
Scheduler::~Scheduler() = default;

void Scheduler::run(std::stop_token stop) {
  impl_->run(std::move(stop));
}
bool Scheduler::synced() const {
  return impl_->pods_synced && impl_->nodes_synced;
}
const SchedulerStats& Scheduler::stats() const {
  return impl_->stats;
}

std::string Scheduler::metrics() const {
  const SchedulerStats& s = impl_->stats;
  std::string out =
      "# HELP planter_scheduler_schedule_attempts_total Scheduling attempts of pods by result.\n"
      "# TYPE planter_scheduler_schedule_attempts_total counter\n";
  out += fmt::format(
      "planter_scheduler_schedule_attempts_total{{result=\"scheduled\"}} {}\n"
      "planter_scheduler_schedule_attempts_total{{result=\"unschedulable\"}} {}\n"
      "planter_scheduler_schedule_attempts_total{{result=\"error\"}} {}\n",
      s.scheduled.load(), s.unschedulable.load(), s.errors.load());
  out +=
      "# HELP planter_scheduler_pending_pods Pods of this scheduler waiting for a node.\n"
      "# TYPE planter_scheduler_pending_pods gauge\n";
  out += fmt::format("planter_scheduler_pending_pods {}\n", s.pending.load());
  out +=
      "# HELP planter_scheduler_gangs_released_total Partly bound gangs whose bound pods were "
      "deleted at their timeout.\n"
      "# TYPE planter_scheduler_gangs_released_total counter\n";
  out += fmt::format("planter_scheduler_gangs_released_total {}\n", s.gangs_released.load());
  out +=
      "# HELP planter_scheduler_e2e_scheduling_duration_seconds From a pod first seen pending to "
      "its binding.\n"
      "# TYPE planter_scheduler_e2e_scheduling_duration_seconds histogram\n";
  uint64_t cumulative = 0;
  for (size_t b = 0; b < std::size(SchedulerStats::kBuckets); ++b) {
    cumulative += s.bucket_counts[b].load();
    out += fmt::format("planter_scheduler_e2e_scheduling_duration_seconds_bucket{{le=\"{}\"}} {}\n",
                       SchedulerStats::kBuckets[b], cumulative);
  }
  cumulative += s.bucket_counts[std::size(SchedulerStats::kBuckets)].load();
  out += fmt::format(
      "planter_scheduler_e2e_scheduling_duration_seconds_bucket{{le=\"+Inf\"}} {}\n"
      "planter_scheduler_e2e_scheduling_duration_seconds_sum {}\n"
      "planter_scheduler_e2e_scheduling_duration_seconds_count {}\n",
      cumulative, static_cast<double>(s.e2e_micros_sum.load()) / 1e6, cumulative);
  return out;
}

}  // namespace planter::scheduler
