#include "scheduler/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "daemon/time_format.h"
#include "kube/informer.h"
#include "model/jitter_seed.h"
#include "model/object.h"
#include "scheduler/binder.h"
#include "scheduler/cache.h"
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
  std::vector<const fit::PodInfo*> pods;
  std::string oldest;  // creationTimestamp of its oldest pod, for queue order
  bool fresh = false;  // a pod of it was not there at the last cycle
};

// A pod to bind, as a binding job holds it (the cache may drop its own copy meanwhile).
struct Job {
  std::shared_ptr<const fit::PodInfo> pod;
  std::string node;
  std::vector<ClaimChoice> claims;
  Clock::time_point first_seen;
  std::vector<DeviceClaimChoice> devices;
};

// What a binding job did, for the scheduling thread.
struct Outcome {
  std::string gang;                  // "ns/group", or ""
  std::vector<std::string> unbound;  // uids it did not bind (failed, or not tried)
  int64_t placed = 0;
  std::string gone;  // a node of it that went away while it was bound
};

constexpr std::string_view kSelectedNodeAnnotation = "volume.kubernetes.io/selected-node";

// A PodGroup of either API: scheduler-plugins' (minMember, planter's annotations) or Kubernetes'
// own scheduling.k8s.io (gang minCount, topology constraints; v1beta1 or v1alpha2).
struct GroupObject {
  json::object object;
  bool upstream = false;
  std::string api_version;
};

// An upstream PodGroup's gang minCount; 1 for a basic policy (each pod as it fits).
int64_t min_count(const GroupObject& g) {
  if (!g.upstream) return integer(g.object, {"spec", "minMember"}, 1);
  if (!find_path(g.object, {"spec", "schedulingPolicy", "gang"})) return 1;
  return integer(g.object, {"spec", "schedulingPolicy", "gang", "minCount"}, 1);
}

// The topology key of an upstream PodGroup's first scheduling constraint, "" without one.
std::string topology_key_of(const GroupObject& g) {
  const json::value* t = find_path(g.object, {"spec", "schedulingConstraints", "topology"});
  if (!g.upstream || !t || !t->is_array() || t->as_array().empty() ||
      !t->as_array().front().is_object())
    return "";
  return string_field(t->as_array().front().as_object(), {"key"});
}

// How long a binding waits for the claims it bound to be Bound (kube-scheduler's
// bindTimeoutSeconds).
constexpr auto kVolumeBindTimeout = std::chrono::seconds(600);

}  // namespace

struct Scheduler::Impl {
  kube::Client& client;
  SchedulerOptions options;
  SchedulerStats stats;
  ClusterCache cache;
  std::unique_ptr<kube::Informer> pods, nodes, groups, claims, volumes, classes;
  // Kubernetes' own PodGroups, as 1.37 (v1beta1) and 1.36 (v1alpha2) serve them.
  std::unique_ptr<kube::Informer> upstream_groups, alpha_groups;
  // Dynamic Resource Allocation's (resource.k8s.io/v1; a cluster before 1.34 serves none).
  std::unique_ptr<kube::Informer> slices, device_classes, resource_claims, taint_rules;
  // Listed once: the informers of what a pod's placement depends on. (PodGroups are not waited
  // for: their kind may not be served, and a pod whose group comes later waits for it.)
  std::atomic<bool> pods_synced{false}, nodes_synced{false}, claims_synced{false},
      volumes_synced{false}, classes_synced{false}, slices_synced{false},
      device_classes_synced{false}, resource_claims_synced{false}, taint_rules_synced{false};
  bool synced() const {
    return pods_synced && nodes_synced && claims_synced && volumes_synced && classes_synced &&
           slices_synced && device_classes_synced && resource_claims_synced && taint_rules_synced;
  }
  std::mutex mu;
  std::condition_variable cv;
  bool dirty = true;
  std::vector<Outcome> outcomes;  // guarded by mu
  // Scheduling thread only. Per pod uid: when first seen pending; the reason last written on it.
  std::map<std::string, Clock::time_point> first_seen;
  std::map<std::string, std::string> last_why;
  // Units that did not fit, looked at again when something frees room or they change.
  std::set<std::string> unschedulable_units;
  // Per gang: since when it is partly bound and the rest does not fit; what its status says.
  std::map<std::string, Clock::time_point> partial_since;
  std::map<std::string, std::string> group_status;
  Search search;
  std::unique_ptr<Binder> binder;
  std::atomic<bool> stopping{false};  // bindings waiting for their claims give up

  Impl(kube::Client& c, SchedulerOptions o)
      : client(c), options(std::move(o)), cache(options.name) {}

  // Whether the Node is in the informer's cache now (read in place, not copied; any thread).
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
                                           kube::InformerHandlers h, std::atomic<bool>* synced) {
    h.synced = [this, synced] {
      if (synced) *synced = true;
      mark();
    };
    // A kind the cluster does not serve has nothing to list: as good as listed.
    h.failed = [this, synced](const kube::ApiError& e) {
      if (!e.kind_unknown() || !synced || *synced) return;
      *synced = true;
      mark();
    };
    return std::make_unique<kube::Informer>(
        client, kube::ResourceQuery{api_version, kind, "", "", ""}, std::move(h));
  }

  void start_informers() {
    kube::InformerHandlers p;
    p.added = [this](const json::object& o) {
      cache.pod_changed(nullptr, o);
      mark();
    };
    p.updated = [this](const json::object& before, const json::object& now) {
      cache.pod_changed(&before, now);
      mark();
    };
    p.deleted = [this](const json::object& o) {
      cache.pod_deleted(o);
      mark();
    };
    pods = informer("v1", "Pod", std::move(p), &pods_synced);
    kube::InformerHandlers n;
    n.added = [this](const json::object& o) {
      cache.node_changed(o);
      mark();
    };
    n.updated = [this](const json::object&, const json::object& now) {
      cache.node_changed(now);
      mark();
    };
    n.deleted = [this](const json::object& o) {
      cache.node_deleted(o);
      mark();
    };
    nodes = informer("v1", "Node", std::move(n), &nodes_synced);
    // Any change of these tells the cache (`changed`): a PodGroup that comes after its pods lets
    // them be looked at again; claims, volumes and classes are read again.
    auto telling = [this](void (ClusterCache::*changed)()) {
      kube::InformerHandlers h;
      h.added = [this, changed](const json::object&) {
        (cache.*changed)();
        mark();
      };
      h.updated = [added = h.added](const json::object&, const json::object& now) { added(now); };
      h.deleted = h.added;
      return h;
    };
    auto volumes_changed = telling(&ClusterCache::volumes_changed);
    groups = informer(std::string(kPodGroupApiVersion), "PodGroup",
                      telling(&ClusterCache::groups_changed), nullptr);
    upstream_groups = informer("scheduling.k8s.io/v1beta1", "PodGroup",
                               telling(&ClusterCache::groups_changed), nullptr);
    alpha_groups = informer("scheduling.k8s.io/v1alpha2", "PodGroup",
                            telling(&ClusterCache::groups_changed), nullptr);
    claims = informer("v1", "PersistentVolumeClaim", volumes_changed, &claims_synced);
    volumes = informer("v1", "PersistentVolume", volumes_changed, &volumes_synced);
    classes = informer("storage.k8s.io/v1", "StorageClass", volumes_changed, &classes_synced);
    slices = informer("resource.k8s.io/v1", "ResourceSlice", volumes_changed, &slices_synced);
    device_classes =
        informer("resource.k8s.io/v1", "DeviceClass", volumes_changed, &device_classes_synced);
    resource_claims =
        informer("resource.k8s.io/v1", "ResourceClaim", volumes_changed, &resource_claims_synced);
    taint_rules =
        informer("resource.k8s.io/v1", "DeviceTaintRule", volumes_changed, &taint_rules_synced);
    for (auto* i : {&pods, &nodes, &groups, &upstream_groups, &alpha_groups, &claims, &volumes,
                    &classes, &slices, &device_classes, &resource_claims, &taint_rules})
      (*i)->start();
  }

  void run(std::stop_token stop) {
    binder = std::make_unique<Binder>(kBinderThreads);
    start_informers();
    std::stop_callback wake(stop, [this] { mark(); });
    std::chrono::milliseconds next{3'600'000};
    while (!stop.stop_requested()) {
      {
        std::unique_lock lock(mu);
        cv.wait_for(lock, next, [&] { return dirty || stop.stop_requested(); });
        dirty = false;
      }
      if (stop.stop_requested()) break;
      if (!synced()) continue;
      next = cycle(stop);
    }
    stopping = true;
    binder.reset();  // the bindings under way finish
    for (auto* i : {&taint_rules, &resource_claims, &device_classes, &slices, &classes, &volumes,
                    &claims, &alpha_groups, &upstream_groups, &groups, &nodes, &pods})
      (*i)->stop();
  }

  static constexpr int kBinderThreads = 16;

  // One pass over what is pending; returns when to look again without a change (a gang's
  // timeout).
  std::chrono::milliseconds cycle(const std::stop_token& stop) {
    ++stats.cycles;
    bool more_room = cache.apply([&](const std::function<void(const json::object&)>& add) {
      for (auto* i :
           {&classes, &volumes, &claims, &slices, &device_classes, &resource_claims, &taint_rules})
        (*i)->for_each(add);
    });
    std::map<std::string, GroupObject> group_objects;  // ns/name
    auto gather = [&](kube::Informer& from, bool upstream, const std::string& api_version) {
      from.for_each([&](const json::object& g) {
        group_objects.try_emplace(string_field(g, {"metadata", "namespace"}) + "/" +
                                      string_field(g, {"metadata", "name"}),
                                  GroupObject{g, upstream, api_version});
      });
    };
    gather(*groups, false, std::string(kPodGroupApiVersion));
    gather(*upstream_groups, true, "scheduling.k8s.io/v1beta1");
    gather(*alpha_groups, true, "scheduling.k8s.io/v1alpha2");
    std::vector<Outcome> done;
    {
      std::lock_guard lock(mu);
      done.swap(outcomes);
    }
    for (Outcome& o : done) more_room = finish(o, group_objects) || more_room;
    if (more_room) unschedulable_units.clear();

    const auto& pending = cache.pending();
    std::erase_if(first_seen, [&](const auto& e) { return !pending.contains(e.first); });
    std::erase_if(last_why, [&](const auto& e) { return !pending.contains(e.first); });
    stats.pending = static_cast<int64_t>(pending.size());

    std::map<std::string, Unit> units;
    for (const auto& [uid, p] : pending) {
      std::string key = p->group.empty() ? "pod:" + p->id() : p->ns + "/" + p->group;
      Unit& u = units[key];
      u.key = p->group.empty() ? "" : key;
      u.pods.push_back(p.get());
      if (u.oldest.empty() || p->created < u.oldest) u.oldest = p->created;
      if (first_seen.try_emplace(uid, Clock::now()).second) u.fresh = true;
    }
    std::vector<std::pair<const std::string*, Unit*>> queue;
    for (auto& [key, u] : units)
      // A partly bound gang is looked at again for its timeout.
      if (u.fresh || !unschedulable_units.contains(key) || partial_since.contains(key))
        queue.emplace_back(&key, &u);
    std::stable_sort(queue.begin(), queue.end(), [](const auto& a, const auto& b) {
      return a.second->oldest < b.second->oldest;
    });
    std::set<std::string> isolated;
    for (const auto& [key, g] : group_objects)
      if (!g.upstream && annotated(g.object, kIsolateAnnotation)) isolated.insert(key);

    release_gangs_of_missing_nodes(group_objects);

    std::chrono::milliseconds next{3'600'000};
    for (auto& [key, u] : queue) {
      if (stop.stop_requested()) break;
      GroupPolicy policy;
      const GroupObject* group = nullptr;
      std::vector<const BoundPod*> members;
      if (!u->key.empty()) {
        bool upstream = u->pods.front()->upstream_group;
        auto g = group_objects.find(u->key);
        if (g == group_objects.end() || g->second.upstream != upstream) {
          unschedulable(*u, fmt::format("PodGroup {} not found ({}); its pods wait for it", u->key,
                                        upstream ? "scheduling.k8s.io" : kPodGroupApiVersion));
          unschedulable_units.insert(*key);
          continue;
        }
        group = &g->second;
        policy.name = u->key;
        policy.min_member = min_count(*group);
        policy.upstream = upstream;
        policy.colocate = !upstream && annotated(group->object, kSameNodeAnnotation);
        policy.isolate = !upstream && annotated(group->object, kIsolateAnnotation);
        members = cache.members(u->key);
        policy.bound = static_cast<int64_t>(members.size());
        if (policy.colocate && !members.empty()) policy.bound_node = members.front()->node;
        policy.topology_key = topology_key_of(*group);
        if (!policy.topology_key.empty() && !members.empty())
          if (auto at = cache.view().index(members.front()->node))
            if (const std::string* v = cache.view().nodes()[*at].label(policy.topology_key))
              policy.bound_domain = *v;
      }
      GroupDecision d = decide_group(cache.view(), u->pods, policy, isolated, search);
      if (!d.bind) {
        unschedulable(*u, d.why);
        unschedulable_units.insert(*key);
        if (group) {
          write_group_status(u->key, *group, policy.bound, "Pending", d.why);
          if (policy.bound > 0 && policy.bound < policy.min_member) {
            auto since = partial_since.try_emplace(u->key, Clock::now()).first->second;
            // An int32 in scheduler-plugins' API; clamped, so that the time point cannot
            // overflow (9223372037 s in nanoseconds wrapped below zero: released at once).
            auto timeout = std::chrono::seconds(
                std::clamp<int64_t>(integer(group->object, {"spec", "scheduleTimeoutSeconds"}, 60),
                                    0, std::numeric_limits<int32_t>::max()));
            if (Clock::now() - since >= timeout) {
              release_partial_gang(u->key, members);
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
      unschedulable_units.erase(*key);
      partial_since.erase(u->key);
      std::vector<Job> jobs;
      for (const Binding& b : d.bindings) {
        auto it = pending.find(b.pod->uid);
        if (it == pending.end()) continue;
        jobs.push_back({it->second, b.node, b.claims, first_seen[b.pod->uid], b.devices});
        cache.assume(b);
      }
      dispatch(u->key, std::move(jobs));
    }
    return next;
  }

  // Binds a decision's claims, then its pods, on the binder's threads; says what it did.
  void dispatch(const std::string& gang, std::vector<Job> jobs) {
    binder->run([this, gang, jobs = std::move(jobs)] {
      Outcome out;
      out.gang = gang;
      auto give_up = [&](size_t from) {
        for (size_t i = from; i < jobs.size(); ++i) out.unbound.push_back(jobs[i].pod->uid);
      };
      if (!bind_claims(jobs) || !reserve_devices(jobs)) {
        give_up(0);
      } else {
        for (size_t i = 0; i < jobs.size(); ++i) {
          if (i > 0 && options.bind_interval.count() > 0)
            std::this_thread::sleep_for(options.bind_interval);
          if (!node_exists(jobs[i].node)) {
            out.gone = jobs[i].node;
            give_up(i);
            break;
          }
          if (bind(jobs[i]))
            ++out.placed;
          else
            out.unbound.push_back(jobs[i].pod->uid);
        }
      }
      {
        std::lock_guard lock(mu);
        outcomes.push_back(std::move(out));
        dirty = true;
      }
      cv.notify_all();
    });
  }

  // Volume binding before any pod of the decision is bound, as kube-scheduler's VolumeBinding
  // PreBind: a claim provisioned where its pod goes gets the selected-node annotation, a claim
  // bound to an available volume gets it as the volume's claimRef; then it waits until the
  // persistent volume controller has bound them all.
  bool bind_claims(const std::vector<Job>& jobs) {
    std::vector<std::pair<std::string, std::string>> wanted;  // (ns, claim)
    for (const Job& j : jobs)
      for (const ClaimChoice& c : j.claims) {
        std::string uid;
        claims->inspect(c.ns, c.claim, [&](const json::object* o) {
          if (o) uid = string_field(*o, {"metadata", "uid"});
        });
        kube::ApiResult<json::object> r =
            c.volume.empty()
                ? client.merge_patch(
                      "v1", "PersistentVolumeClaim", c.ns, c.claim,
                      json::object{
                          {"metadata",
                           {{"annotations", {{std::string(kSelectedNodeAnnotation), j.node}}}}}})
                : client.merge_patch("v1", "PersistentVolume", "", c.volume,
                                     json::object{{"spec",
                                                   {{"claimRef",
                                                     {{"kind", "PersistentVolumeClaim"},
                                                      {"apiVersion", "v1"},
                                                      {"namespace", c.ns},
                                                      {"name", c.claim},
                                                      {"uid", uid}}}}}});
        if (!r) {
          ++stats.errors;
          log(fmt::format("binding claim {}/{} for {} on {}: {}", c.ns, c.claim, j.pod->id(),
                          j.node, r.error().str()));
          return false;
        }
        wanted.emplace_back(c.ns, c.claim);
      }
    auto deadline = Clock::now() + kVolumeBindTimeout;
    for (const auto& [ns, name] : wanted) {
      for (;;) {
        bool bound = false;
        claims->inspect(ns, name, [&](const json::object* o) {
          bound = o && !string_field(*o, {"spec", "volumeName"}).empty() &&
                  string_field(*o, {"status", "phase"}) == "Bound";
        });
        if (bound) break;
        if (stopping) return false;
        if (Clock::now() >= deadline) {
          log(fmt::format("claim {}/{} not bound within {} s", ns, name,
                          kVolumeBindTimeout.count()));
          return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    return true;
  }

  // The decision's ResourceClaims before any pod of it is bound, as kube-scheduler's
  // DynamicResources PreBind: each gets the allocation chosen for it (unless it had one) and the
  // pod in status.reservedFor, written over the claim as the watch holds it (a conflict: another
  // writer was first, and the pods are looked at again).
  bool reserve_devices(const std::vector<Job>& jobs) {
    for (const Job& j : jobs)
      for (const DeviceClaimChoice& c : j.devices) {
        if (c.claim.empty()) {
          if (!reserve_extended(j, c)) return false;
          continue;
        }
        std::optional<json::object> claim;
        resource_claims->inspect(c.ns, c.claim, [&](const json::object* o) {
          if (o) claim = *o;
        });
        if (!claim) {
          log(fmt::format("reserving ResourceClaim {}/{} for {}: not found", c.ns, c.claim,
                          j.pod->id()));
          return false;
        }
        json::value& status_value = (*claim)["status"];
        if (!status_value.is_object()) status_value = json::object{};
        json::object& status = status_value.as_object();
        if (!c.allocated_before && !status.contains("allocation"))
          status["allocation"] = allocation_of(c, j.node);
        json::value& reserved = status["reservedFor"];
        if (!reserved.is_array()) reserved = json::array{};
        bool there = false;
        for (const json::value& r : reserved.as_array())
          there = there || (r.is_object() && string_field(r.as_object(), {"uid"}) == j.pod->uid);
        if (!there)
          reserved.as_array().push_back(
              json::object{{"resource", "pods"}, {"name", j.pod->name}, {"uid", j.pod->uid}});
        if (auto r = client.update_status(*claim); !r) {
          ++stats.errors;
          log(fmt::format("reserving ResourceClaim {}/{} for {} on {}: {}", c.ns, c.claim,
                          j.pod->id(), j.node, r.error().str()));
          return false;
        }
      }
    return true;
  }

  // The pod's own claim of its extended resources, as kube-scheduler's PreBind makes it: created,
  // its allocation and the pod in reservedFor written, and the pod's
  // status.extendedResourceClaimStatus naming it with the request of each container's resource.
  bool reserve_extended(const Job& j, const DeviceClaimChoice& c) {
    const fit::PodInfo& pod = *j.pod;
    auto fail = [&](const std::string& what, const kube::ApiError& e) {
      ++stats.errors;
      log(fmt::format("{} for the extended resources of {} on {}: {}", what, pod.id(), j.node,
                      e.str()));
      return false;
    };
    auto made = client.create(extended_claim_of(c, pod));
    if (!made) return fail("creating a ResourceClaim", made.error());
    json::object claim = std::move(*made);
    claim["status"] = json::object{
        {"allocation", allocation_of(c, j.node)},
        {"reservedFor",
         json::array{json::object{{"resource", "pods"}, {"name", pod.name}, {"uid", pod.uid}}}}};
    if (auto r = client.update_status(claim); !r)
      return fail("reserving its ResourceClaim", r.error());
    json::object status{
        {"extendedResourceClaimStatus",
         json::object{{"resourceClaimName", string_field(claim, {"metadata", "name"})},
                      {"requestMappings", extended_mappings(c)}}}};
    if (auto r = client.merge_patch("v1", "Pod", pod.ns, pod.name,
                                    json::object{{"status", std::move(status)}}, true);
        !r)
      return fail("writing the pod's extendedResourceClaimStatus", r.error());
    return true;
  }

  bool bind(const Job& j) {
    const fit::PodInfo& pod = *j.pod;
    auto r = client.bind(pod.ns, pod.name, j.node);
    if (!r) {
      ++stats.errors;
      log(fmt::format("binding {} to {}: {}", pod.id(), j.node, r.error().str()));
      return false;
    }
    ++stats.scheduled;
    double s = std::chrono::duration<double>(Clock::now() - j.first_seen).count();
    size_t b = 0;
    while (b < std::size(SchedulerStats::kBuckets) && s > SchedulerStats::kBuckets[b]) ++b;
    ++stats.bucket_counts[b];
    stats.e2e_micros_sum += static_cast<uint64_t>(s * 1e6);
    event(pod.ns, "Pod", "v1", pod.name, pod.uid, "Normal", "Scheduled",
          fmt::format("Successfully assigned {} to {}", pod.id(), j.node));
    return true;
  }

  // On the scheduling thread: what a binding job did. True when it freed room.
  bool finish(const Outcome& o, const std::map<std::string, GroupObject>& group_objects) {
    for (const std::string& uid : o.unbound) cache.forget(uid);
    auto g = o.gang.empty() ? group_objects.end() : group_objects.find(o.gang);
    if (g == group_objects.end()) return !o.unbound.empty();
    std::vector<const BoundPod*> members = cache.members(o.gang);
    if (!o.gone.empty()) {
      release_gang_of_missing_node(o.gang, g->second, members, o.gone);
      return true;
    }
    if (o.placed > 0) {
      auto bound = static_cast<int64_t>(members.size());
      int64_t min_member = min_count(g->second);
      write_group_status(o.gang, g->second, bound, bound >= min_member ? "Scheduled" : "Scheduling",
                         "");
    }
    return !o.unbound.empty();
  }

  // A gang bound (partly or whole) to a node that no longer exists is released: all or nothing
  // holds for where it runs too, and its status never says Scheduled on a missing node.
  void release_gangs_of_missing_nodes(const std::map<std::string, GroupObject>& group_objects) {
    for (const auto& [key, group] : group_objects) {
      std::vector<const BoundPod*> members = cache.members(key);
      for (const BoundPod* m : members)
        if (!m->assumed && !cache.view().index(m->node) && !node_exists(m->node)) {
          release_gang_of_missing_node(key, group, members, m->node);
          break;
        }
    }
  }

  // PodScheduled=False with the reason, and a FailedScheduling Event, when the reason changed.
  void unschedulable(const Unit& u, const std::string& why) {
    for (const fit::PodInfo* p : u.pods) {
      std::string& last = last_why[p->uid];
      if (last == why) continue;
      last = why;
      ++stats.unschedulable;
      binder->run([this, ns = p->ns, name = p->name, uid = p->uid, id = p->id(), why] {
        json::object patch{
            {"status",
             {{"conditions", json::array{json::object{{"type", "PodScheduled"},
                                                      {"status", "False"},
                                                      {"reason", "Unschedulable"},
                                                      {"message", why},
                                                      {"lastTransitionTime", now_rfc3339()}}}}}}};
        auto r = client.merge_patch("v1", "Pod", ns, name, patch, true);
        if (!r && !r.error().not_found()) log(fmt::format("status of {}: {}", id, r.error().str()));
        event(ns, "Pod", "v1", name, uid, "Warning", "FailedScheduling", why);
      });
    }
  }

  void write_group_status(const std::string& key, const GroupObject& g, int64_t scheduled,
                          const std::string& phase, const std::string& why) {
    std::string state = fmt::format("{}|{}|{}", phase, scheduled, why);
    if (group_status[key] == state) return;
    group_status[key] = state;
    const json::object& group = g.object;
    std::string ns = string_field(group, {"metadata", "namespace"});
    std::string name = string_field(group, {"metadata", "name"});
    json::object status{{"phase", phase}, {"scheduled", scheduled}};
    if (phase != "Pending") status["scheduleStartTime"] = now_rfc3339();
    if (g.upstream) {
      if (phase == "Scheduling") return;  // partly bound: the condition waits for the outcome
      status = json::object{{"conditions", upstream_conditions(group, phase == "Scheduled", why)}};
    }
    auto r = client.merge_patch(g.api_version, "PodGroup", ns, name,
                                json::object{{"status", std::move(status)}}, true);
    if (!r && !r.error().not_found())
      log(fmt::format("status of PodGroup {}: {}", key, r.error().str()));
    if (!why.empty())
      event(ns, "PodGroup", g.api_version, name, string_field(group, {"metadata", "uid"}),
            "Warning", "FailedScheduling", why);
  }

  // An upstream PodGroup's conditions with PodGroupScheduled set as kube-scheduler sets it:
  // True (Scheduled) or False (Unschedulable, with why), never back from True; the transition
  // time moves only with the status; the other conditions kept.
  json::array upstream_conditions(const json::object& group, bool scheduled,
                                  const std::string& why) {
    json::array out;
    const json::value* old = find_path(group, {"status", "conditions"});
    json::object mine{{"type", "PodGroupScheduled"},
                      {"status", scheduled ? "True" : "False"},
                      {"reason", scheduled ? "Scheduled" : "Unschedulable"},
                      {"message", scheduled ? "" : why},
                      {"observedGeneration", integer(group, {"metadata", "generation"}, 1)},
                      {"lastTransitionTime", now_rfc3339()}};
    if (old && old->is_array())
      for (const json::value& c : old->as_array()) {
        if (!c.is_object() || string_field(c.as_object(), {"type"}) != "PodGroupScheduled") {
          out.push_back(c);
          continue;
        }
        std::string was = string_field(c.as_object(), {"status"});
        if (was == "True" && !scheduled)
          mine = c.as_object();
        else if (was == string_field(mine, {"status"}))
          mine["lastTransitionTime"] = c.as_object().at("lastTransitionTime");
      }
    out.push_back(std::move(mine));
    return out;
  }

  // Deletes the bound pods of a gang.
  void release_gang(const std::vector<const BoundPod*>& pods) {
    for (const BoundPod* p : pods) {
      auto r = client.remove("v1", "Pod", p->info->ns, p->info->name);
      if (!r && !r.error().not_found())
        log(fmt::format("deleting {}: {}", p->info->id(), r.error().str()));
    }
    ++stats.gangs_released;
  }

  // A gang with pods bound to `node`, which no longer exists (deleted while it was being bound,
  // or after): every bound pod of it goes, wherever it runs, so that the gang starts again whole
  // elsewhere (their controllers make them again); the PodGroup says why.
  void release_gang_of_missing_node(const std::string& key, const GroupObject& group,
                                    const std::vector<const BoundPod*>& pods,
                                    const std::string& node) {
    release_gang(pods);
    std::string why = fmt::format(
        "pod group {}: node {} went away with {} of its pod(s) bound; released the gang ({} "
        "pod(s) deleted) to place it whole again",
        key, node, pods.size(), pods.size());
    log(why);
    write_group_status(key, group, 0, "Pending", why);
  }

  // A gang left partly bound whose rest does not fit within its timeout: its bound pods go, so
  // that it holds no room it cannot use; their controllers make them again.
  void release_partial_gang(const std::string& key, const std::vector<const BoundPod*>& pods) {
    release_gang(pods);
    log(
        fmt::format("pod group {}: {} pod(s) bound but the rest did not fit within its "
                    "scheduleTimeoutSeconds; deleted them",
                    key, pods.size()));
  }

  void event(const std::string& ns, const std::string& kind, const std::string& api_version,
             const std::string& name, const std::string& uid, const std::string& type,
             const std::string& reason, const std::string& message) {
    std::string ts = now_rfc3339();
    json::object e{{"apiVersion", "v1"},
                   {"kind", "Event"},
                   {"metadata",
                    // A suffix distinct per call, as an Event's name must be.
                    {{"name", fmt::format("{}.{:016x}", name, jitter_seed())}, {"namespace", ns}}},
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
  return impl_->synced();
}
const SchedulerStats& Scheduler::stats() const {
  return impl_->stats;
}

}  // namespace planter::scheduler
