// The sim scheduler's PodGroup cycle, written from kubernetes.io "PodGroup Scheduling", "Gang
// Scheduling" and "Topology-Aware Workload Scheduling":
// - the group's waiting pods are taken out of the queue together and sorted by priority, then by
//   when the scheduler first saw them;
// - one snapshot for the whole cycle: each pod is filtered and scored as alone, with the group's
//   pods placed before it assumed on their nodes (GangScheduling's Permit waits until minCount);
// - if at least minCount of the group (those already bound count) are placed, every placed pod is
//   bound and the PodGroup's PodGroupScheduled condition says True (reason Scheduled); otherwise
//   none is, the placed ones are told "pod group is unschedulable, waiting for minCount pods from
//   a gang to be scheduled", the others why they fit nowhere, and the condition says False
//   (reason Unschedulable), never going back from True;
// - with schedulingConstraints.topology [{key}], each domain of the key (the nodes sharing its
//   value) is a candidate placement, tried as above on its nodes only; of the domains that hold
//   the group, the one placing most pods, then the one left most allocated (TopologyPlacement,
//   PodGroupPodsCount and NodeResourcesFit's MostAllocated placement scores, equal weights), then
//   the first by name. Pods joining a group some of whose pods are bound go to their domain.
#include <algorithm>
#include <boost/json/serialize.hpp>
#include <map>
#include <string>
#include <vector>

#include "sim/cluster.h"
#include "sim/json_access.h"
#include "sim/kube_scheduler/dynamic_resources.h"
#include "sim/kube_scheduler/scheduler.h"
#include "sim/kube_scheduler/volume_binding.h"

namespace planter::sim::sched {

namespace json = boost::json;

namespace {

constexpr const char* kWaitingForGang =
    "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled";

struct Member {
  std::string key;
  StoredObject pod;
  int64_t priority = 0;
  uint64_t seen = 0;
};

// One candidate placement tried: each member's verdict, in the members' order.
struct Attempt {
  std::vector<Verdict> verdicts;
  int64_t placed = 0;
  double allocated = 0;  // the placement's share of cpu and memory requested, once placed
};

double allocated_share(const std::vector<NodeInfo*>& nodes) {
  double cpu = 0, cpu_all = 0, memory = 0, memory_all = 0;
  for (const NodeInfo* n : nodes) {
    cpu += static_cast<double>(n->requested.cpu_milli);
    cpu_all += static_cast<double>(n->allocatable.cpu_milli);
    memory += static_cast<double>(n->requested.memory);
    memory_all += static_cast<double>(n->allocatable.memory);
  }
  return ((cpu_all > 0 ? cpu / cpu_all : 0) + (memory_all > 0 ? memory / memory_all : 0)) / 2;
}

}  // namespace

void Scheduler::on_pod_group_change(const Change& ch) {
  std::string key = groups_.group_changed(ch);
  if (ch.type == EventType::kDeleted) return;
  // An update lets the group's pods pass only when it lowers minCount (a status write does not).
  if (ch.type == EventType::kModified && ch.previous &&
      PodGroups::min_count(*ch.object) >= PodGroups::min_count(*ch.previous))
    return;
  release_group(key);
}

// The group's pods held in PreEnqueue or refused, queued again (a pod or the PodGroup came).
void Scheduler::release_group(const std::string& group_key) {
  const PodGroups::Group* g = groups_.find(group_key);
  if (!g) return;
  for (const std::string& key : g->members)
    if (gated_.erase(key) + unschedulable_.erase(key) > 0) enqueue(key);
}

void Scheduler::schedule_group(const std::string& group_key) {
  const PodGroups::Group* group = groups_.find(group_key);
  if (!group || !group->object) return;
  Store& store = cluster_.store();
  std::vector<Member> members;
  for (const std::string& key : group->members) {
    if (group->bound.contains(key)) continue;
    size_t slash = key.find('/');
    StoredObject pod = store.get("/pods", key.substr(0, slash), key.substr(slash + 1));
    if (!pod || !waiting_for_us(*pod)) continue;
    members.push_back(
        {key, pod, int_at(object_at(*pod, "spec"), "priority"), groups_.first_seen(key)});
    // Taken out of the queue with the one popped: the cycle decides for them all.
    queued_.erase(key);
    unschedulable_.erase(key);
  }
  if (members.empty()) return;
  std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
    return a.priority != b.priority ? a.priority > b.priority : a.seen < b.seen;
  });
  int64_t min_count = PodGroups::min_count(*group);
  int64_t bound = static_cast<int64_t>(group->bound.size());

  // The candidate placements: every node, or each domain of the topology key.
  std::vector<std::vector<NodeInfo*>> placements;
  std::string topology = PodGroups::topology_key(*group);
  if (topology.empty()) {
    placements.push_back(cache_.nodes());
  } else {
    std::string held;  // the domain of the group's bound pods
    for (const std::string& key : group->bound)
      if (auto it = cache_.pods().find(key); it != cache_.pods().end() && it->second->where)
        if (const std::string* v = it->second->where->label(topology)) held = *v;
    std::map<std::string, std::vector<NodeInfo*>> domains;
    for (NodeInfo* n : cache_.nodes())
      if (const std::string* v = n->label(topology))
        if (held.empty() || *v == held) domains[*v].push_back(n);
    for (auto& [_, nodes] : domains) placements.push_back(std::move(nodes));
  }

  std::vector<Attempt> attempts;
  // Pods of one shape (the same spec, without pod affinity or spread constraints, which pods
  // placed later could satisfy) that one refused are refused too in the same placement: once
  // one is refused, the rest are told the same without filtering again (a group of a thousand
  // identical pods and a key with a domain per node must not hold the event loop).
  std::vector<std::string> shapes(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    const json::object* spec = object_at(*members[i].pod, "spec");
    const json::object* affinity = object_at(spec, "affinity");
    if (spec && !object_at(affinity, "podAffinity") && !object_at(affinity, "podAntiAffinity") &&
        !array_at(spec, "topologySpreadConstraints") && !array_at(spec, "resourceClaims"))
      shapes[i] = json::serialize(*spec);
  }
  for (const std::vector<NodeInfo*>& nodes : placements) {
    Attempt attempt;
    std::vector<std::string> assumed;
    std::map<std::string, size_t> refused;  // shape -> the verdict of the first refused
    for (size_t i = 0; i < members.size(); ++i) {
      const Member& m = members[i];
      if (auto same = shapes[i].empty() ? refused.end() : refused.find(shapes[i]);
          same != refused.end()) {
        Verdict v;
        v.message = attempt.verdicts[same->second].message;
        v.rejected = attempt.verdicts[same->second].rejected;
        attempt.verdicts.push_back(std::move(v));
        continue;
      }
      Verdict v = select_node(*m.pod, nodes);
      if (!v.node && !shapes[i].empty()) refused.emplace(shapes[i], attempt.verdicts.size());
      if (v.node) {
        cache_.assume(m.pod, v.node->name);
        assumed.push_back(m.key);
        ++attempt.placed;
      }
      attempt.verdicts.push_back(std::move(v));
    }
    attempt.allocated = allocated_share(nodes);
    for (const std::string& key : assumed) cache_.forget(key);
    attempts.push_back(std::move(attempt));
  }

  // The best placement: a feasible one placing most pods, then the most allocated; if none is
  // feasible, the one placing most, whose verdicts the pods are told.
  auto feasible_at = [&](const Attempt& a) { return bound + a.placed >= min_count; };
  auto better = [&](const Attempt& a, const Attempt& b) {
    if (feasible_at(a) != feasible_at(b)) return feasible_at(a);
    if (a.placed != b.placed) return a.placed > b.placed;
    return feasible_at(a) && a.allocated > b.allocated;
  };
  Attempt* best = nullptr;
  for (Attempt& a : attempts)
    if (!best || better(a, *best)) best = &a;
  if (!best) {
    // No node carries the topology key: no placement at all.
    std::string message = "0/" + std::to_string(cache_.node_count()) +
                          " nodes are available: no node has the label \"" + topology +
                          "\" of the pod group's topology constraint.";
    for (const Member& m : members) unschedulable(*m.pod, message, kByNode);
    record_group_condition(group->object, false, "pod group is unschedulable");
    return;
  }
  bool feasible = feasible_at(*best);
  StoredObject group_object = group->object;
  for (size_t i = 0; i < members.size(); ++i) {
    Verdict& v = best->verdicts[i];
    const Member& m = members[i];
    if (!v.node) {
      unschedulable(*m.pod, v.message, v.rejected);
    } else if (!feasible) {
      unschedulable(*m.pod, kWaitingForGang, kByNode);
    } else {
      // Claims are allocated one pod after another at Reserve: what an earlier member took is
      // looked at again before this one's are written.
      if (v.devices && v.devices->has_claims()) {
        v.devices = std::make_unique<DynamicResourcesCheck>(*m.pod, store, devices_, cel_);
        if (v.devices->prefilter_failure() || v.devices->filter(*v.node)) {
          enqueue(m.key);
          continue;
        }
      }
      commit(m.key, *m.pod, v);
    }
  }
  record_group_condition(group_object, feasible, feasible ? "" : "pod group is unschedulable");
}

// PodGroupScheduled on the PodGroup's status, as metav1 conditions are set: the transition time
// moves only when the status does; True is never taken back by a later cycle's failure.
void Scheduler::record_group_condition(const StoredObject& group, bool scheduled,
                                       const std::string& message) {
  if (!group) return;
  std::string ns = meta_string(*group, "namespace"), name = meta_string(*group, "name");
  StoredObject current = cluster_.store().get(PodGroups::kStorageKey, ns, name);
  if (!current) return;
  json::object updated = *current;
  json::value& status = updated["status"];
  if (!status.is_object()) status = json::object{};
  json::value& conditions = status.as_object()["conditions"];
  if (!conditions.is_array()) conditions = json::array{};
  json::object condition{
      {"type", "PodGroupScheduled"},
      {"status", scheduled ? "True" : "False"},
      {"observedGeneration", int_at(object_at(*current, "metadata"), "generation", 1)},
      {"lastTransitionTime", rfc3339(cluster_.environment().now())},
      {"reason", scheduled ? "Scheduled" : "Unschedulable"},
      {"message", message}};
  bool found = false;
  for (json::value& c : conditions.as_array()) {
    if (!c.is_object() || string_at(c.as_object(), "type") != "PodGroupScheduled") continue;
    found = true;
    json::object& old = c.as_object();
    if (string_at(old, "status") == "True" && !scheduled) return;
    if (string_at(old, "status") == string_at(condition, "status"))
      condition["lastTransitionTime"] = old["lastTransitionTime"];
    if (old == condition) return;
    old = std::move(condition);
    break;
  }
  if (!found) conditions.as_array().push_back(std::move(condition));
  const auto versions = cluster_.catalog().versions_of(PodGroups::kStorageKey);
  if (versions.empty()) return;
  std::string path = "/apis/scheduling.k8s.io/" + versions.front()->version + "/namespaces/" + ns +
                     "/podgroups/" + name + "/status";
  cluster_.call("PUT", path, "application/json", updated, kUser, kAgent);
}

}  // namespace planter::sim::sched
