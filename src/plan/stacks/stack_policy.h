// Stacks: the `planter.nephio.org/v1alpha1 Stack` objects of a seed, which planter consumes and
// never declares. A Stack names its members (seed objects its selector matches, or that carry the
// annotation `planter.nephio.org/stack: <name>`) and the policies planter writes into their pods
// (mutate.h): atomic, colocate, separateFrom, dedicated. docs/stacks.md has the schema.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/diagnostics.h"
#include "model/label_selector.h"
#include "model/object.h"
#include "model/well_known_labels.h"

namespace planter {

inline constexpr std::string_view kStackApiVersion = "planter.nephio.org/v1alpha1";
inline constexpr std::string_view kStackAnnotation = "planter.nephio.org/stack";
// A co-scheduled stack's anchor pods carry this label, with the stack's name as its value.
inline constexpr std::string_view kAnchorLabel = "planter.nephio.org/anchor";
inline constexpr std::string_view kAnchorImage = "registry.k8s.io/pause:3.10";
// mode scheduler: the scheduler's name, and the label and kind of scheduler-plugins' gangs.
inline constexpr std::string_view kPlanterSchedulerName = "planter";
// The Lease `planter scheduler` holds while it schedules (its --leader-elect-resource-* default).
inline constexpr std::string_view kSchedulerLeaseNamespace = "kube-system";
inline constexpr std::string_view kSchedulerLease = "planter-scheduler";
// The PodGroup's apiVersion and annotations: model/well_known_labels.h (the scheduler reads them).
// mode gang: Kubernetes' own gang API (beta in 1.37) and the Workload's one template.
inline constexpr std::string_view kGangApiVersion = "scheduling.k8s.io/v1beta1";
inline constexpr std::string_view kGangTemplateName = "members";
// A StatefulSet's name leaves room for its pods' controller-revision-hash label (63 characters).
inline constexpr size_t kMaxStatefulSetName = 52;

// How a cluster gangs a mode-gang stack, by what its API serves (docs/coscheduling.md):
// Kubernetes' own PodGroup (v1beta1 from 1.37, v1alpha2 in 1.36), else scheduler-plugins'
// PodGroup with planter's scheduler, else an anchor on one node.
enum class GangPath { kUpstream, kUpstreamAlpha, kPlantersScheduler, kAnchor };
std::string_view to_string(GangPath p);

struct StackPolicy {
  std::string name;
  SourceLocation source;
  boost::json::object body;               // as the seed wrote it
  std::optional<LabelSelector> selector;  // none: members join by annotation only
  // atomic: requests = limits for cpu and memory in every container; `default_*` size the
  // containers that state neither (spec.atomic.defaults).
  bool atomic = false;
  std::string default_cpu, default_memory;
  // colocate: every pod of the stack in one domain of `topology_key`.
  bool colocate = false;
  std::string topology_key = std::string(kHostnameKey);
  // spec.topology: the whole stack in one domain of topology_key. Required: colocated, and its
  // members wait until one domain holds all of it (`held`), then are steered there (and a gang's
  // PodGroup says it to kube-scheduler). Preferred: its pods prefer one another's domain.
  enum class Topology { kNone, kRequired, kPreferred };
  Topology topology = Topology::kNone;
  std::vector<std::string> separate_from;  // never on a node with these stacks' pods
  // dedicated: a toleration of the taint key=value:NoSchedule and a required node affinity on
  // the label key=value.
  std::optional<std::pair<std::string, std::string>> dedicated;
  // coschedule: the group on one node, reserved before any member exists (docs/coscheduling.md).
  // kAnchor: a placeholder StatefulSet planter places itself, which every member follows.
  // kScheduler: planter's second scheduler places the members' pods as one gang (a PodGroup).
  // kGang: the cluster's own kube-scheduler places them all or nothing (Kubernetes' Workload and
  // PodGroup, scheduling.k8s.io/v1beta1), on any nodes: no same-node rule.
  enum class Coschedule { kNone, kAnchor, kScheduler, kGang };
  Coschedule coschedule = Coschedule::kNone;
  bool isolate = false;   // anchors of different stacks never share a node
  int64_t min_count = 0;  // kGang: the gang's minCount (0: the stack's pod count)
  // kGang: the API the PodGroup and Workload are written in (v1alpha2 on a 1.36 cluster).
  std::string gang_api_version = std::string(kGangApiVersion);
  // kScheduler without the same-node rule: a gang fallen back to planter's scheduler.
  bool same_node = true;
  // spec.clusters: the stack goes to `cluster_count` of the clusters `cluster_selector` (the
  // cluster-selector annotation's syntax) matches, chosen by room (plan/cluster_choice.h); 0:
  // its members are placed one by one.
  int64_t cluster_count = 0;
  std::string cluster_selector;
  std::string cluster_spread;  // spec.clusters.spread as the cluster-spread annotation; "": none
  std::string cluster_tolerations;  // spec.clusters.tolerations as their annotation; "": none
  std::string cluster_preferences;  // spec.clusters.preferences as their annotation; "": none

  // "planter.nephio.org/v1alpha1 Stack moodle-a"
  std::string display() const;
};

// True for Stack objects (which are read, never declared).
bool is_stack(const Object& o);

// Reads the seed's Stacks, reporting every malformed one, and removes them from `objects`.
std::vector<StackPolicy> read_stacks(std::vector<Object>& objects, Diagnostics& diags);

}  // namespace planter
