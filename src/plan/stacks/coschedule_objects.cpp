#include "plan/stacks/coschedule_objects.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <functional>
#include <utility>

#include "plan/placement.h"
#include "plan/stacks/pod_kinds.h"
#include "plan/stacks/policy_writer.h"
#include "seed/planter_annotations.h"

namespace planter {

namespace json = boost::json;

void collect(AnchorInputs& in, const Object& member, const PodTarget& t) {
  if (!in.makes_pods) {
    in.makes_pods = true;
    for (std::string_view key : {kClusterAnnotation, kClustersAnnotation,
                                 kClusterSelectorAnnotation, kClusterCountAnnotation})
      if (const json::string* v = member.annotation(key)) in.placement[key] = *v;
  }
  in.namespaces.insert(member.ref.ns);
  if (!t.volumes) return;
  for (const json::value& v : *t.volumes) {
    const json::value* claim =
        v.is_object() ? find_path(v.as_object(), {"persistentVolumeClaim", "claimName"}) : nullptr;
    if (!claim || !claim->is_string()) continue;
    std::string name(claim->as_string());
    if (std::find(in.claims.begin(), in.claims.end(), name) == in.claims.end())
      in.claims.push_back(name);
  }
}

namespace {

// What planter adds for a stack goes where the stack's first pod-making member goes: its
// placement annotations are copied into `annotations`.
void place_like(const AnchorInputs& in, json::object& annotations) {
  for (const auto& [key, value] : in.placement) annotations[key] = value;
}

// The index of `made` in `objects`: the seed's own copy when it holds one that `same` accepts (a
// seed planter annotated before), else `made` added at the end.
size_t adopt(std::vector<Object>& objects, Object made,
             const std::function<bool(const Object&)>& same) {
  for (size_t k = 0; k < objects.size(); ++k)
    if (objects[k].ref.same_object(made.ref) && same(objects[k])) return k;
  objects.push_back(std::move(made));
  return objects.size() - 1;
}

// The anchor of a co-scheduled stack: a one-replica StatefulSet of the pause image, with tiny
// guaranteed requests, mounting every claim its members mount (so that WaitForFirstConsumer
// volumes bind where the anchor runs), placed on the clusters of its first member.
Object make_anchor(const StackPolicy& stack, const AnchorInputs& in) {
  std::string name = stack.name + "-anchor";
  std::string ns = in.namespaces.empty() ? "" : *in.namespaces.begin();
  json::object labels{{kAnchorLabel, stack.name}};
  json::array volumes, mounts;
  for (size_t i = 0; i < in.claims.size(); ++i) {
    std::string volume = fmt::format("claim-{}", i);
    volumes.push_back(
        json::object{{"name", volume}, {"persistentVolumeClaim", {{"claimName", in.claims[i]}}}});
    mounts.push_back(
        json::object{{"name", volume}, {"mountPath", fmt::format("/anchor/{}", in.claims[i])}});
  }
  json::object size{{"cpu", "10m"}, {"memory", "16Mi"}};
  json::object container{{"name", "anchor"},
                         {"image", std::string(kAnchorImage)},
                         {"resources", {{"requests", size}, {"limits", size}}}};
  if (!mounts.empty()) container["volumeMounts"] = std::move(mounts);
  json::object pod_spec{{"containers", json::array{std::move(container)}},
                        {"terminationGracePeriodSeconds", 0}};
  if (!volumes.empty()) pod_spec["volumes"] = std::move(volumes);
  json::object metadata{{"name", name}, {"labels", labels}};
  if (!ns.empty()) metadata["namespace"] = ns;
  json::object annotations;
  place_like(in, annotations);
  if (!annotations.empty()) metadata["annotations"] = std::move(annotations);
  Object anchor;
  anchor.body = json::object{
      {"apiVersion", "apps/v1"},
      {"kind", "StatefulSet"},
      {"metadata", std::move(metadata)},
      {"spec",
       {{"replicas", 1},
        {"serviceName", name},
        {"selector", {{"matchLabels", labels}}},
        {"template", {{"metadata", {{"labels", labels}}}, {"spec", std::move(pod_spec)}}}}}};
  anchor.ref = {"apps/v1", "StatefulSet", ns, name};
  anchor.source = stack.source;
  return anchor;
}

// The gang of a stack co-scheduled by planter's scheduler: a PodGroup (scheduler-plugins' API)
// of all its pods, on one node (and alone there when isolated).
Object make_pod_group(const StackPolicy& stack, const AnchorInputs& in, int64_t pods) {
  std::string ns = in.namespaces.empty() ? "" : *in.namespaces.begin();
  json::object annotations;
  if (stack.same_node) annotations[kSameNodeAnnotationKey] = "true";
  if (stack.isolate) annotations[kIsolateAnnotationKey] = "true";
  place_like(in, annotations);
  json::object metadata{{"name", stack.name}, {"annotations", std::move(annotations)}};
  if (!ns.empty()) metadata["namespace"] = ns;
  Object group;
  group.body = json::object{{"apiVersion", kPodGroupApiVersionText},
                            {"kind", "PodGroup"},
                            {"metadata", std::move(metadata)},
                            {"spec", {{"minMember", pods}}}};
  group.ref = {std::string(kPodGroupApiVersionText), "PodGroup", ns, stack.name};
  group.source = stack.source;
  return group;
}

// A gang the cluster's kube-scheduler places (mode gang): Kubernetes' own Workload, the template,
// and the PodGroup made from it, as the Job controller makes them (docs/coscheduling.md), in the
// members' namespace: minCount the stack's (default: its pod count).
std::pair<Object, Object> make_gang(const StackPolicy& stack, const AnchorInputs& in,
                                    int64_t min_count) {
  std::string ns = in.namespaces.empty() ? "" : *in.namespaces.begin();
  json::object policy{{"gang", {{"minCount", min_count}}}};
  // Held to one domain: kube-scheduler's topology-aware scheduling keeps the gang there too.
  json::object template_of{{"name", kGangTemplateName}, {"schedulingPolicy", policy}};
  json::object group_spec{
      {"podGroupTemplateRef",
       {{"workload", {{"workloadName", stack.name}, {"podGroupTemplateName", kGangTemplateName}}}}},
      {"schedulingPolicy", policy}};
  if (stack.topology == StackPolicy::Topology::kRequired) {
    json::object constraints{{"topology", json::array{json::object{{"key", stack.topology_key}}}}};
    template_of["schedulingConstraints"] = constraints;
    group_spec["schedulingConstraints"] = std::move(constraints);
  }
  // Their specs are immutable: a replant that changes the gang makes them again.
  auto metadata = [&] {
    json::object annotations{{kOnImmutableAnnotation, "replace"}};
    place_like(in, annotations);
    json::object m{{"name", stack.name}, {"annotations", std::move(annotations)}};
    if (!ns.empty()) m["namespace"] = ns;
    return m;
  };
  Object workload;
  workload.body =
      json::object{{"apiVersion", stack.gang_api_version},
                   {"kind", "Workload"},
                   {"metadata", metadata()},
                   {"spec", {{"podGroupTemplates", json::array{std::move(template_of)}}}}};
  workload.ref = {stack.gang_api_version, "Workload", ns, stack.name};
  workload.source = stack.source;
  Object group;
  group.body = json::object{{"apiVersion", stack.gang_api_version},
                            {"kind", "PodGroup"},
                            {"metadata", metadata()},
                            {"spec", std::move(group_spec)}};
  group.ref = {stack.gang_api_version, "PodGroup", ns, stack.name};
  group.source = stack.source;
  return {std::move(workload), std::move(group)};
}

}  // namespace

void add_coschedule_objects(const StackPolicy& stack, const AnchorInputs& in,
                            std::vector<Object>& objects, const KindTable& kinds, StackNeeds& needs,
                            Diagnostics& diags) {
  if (!in.makes_pods) {
    diags.warn(stack.source.str(), stack.display(),
               "coschedule: no member of the stack makes pods, so there is nothing to place");
    return;
  }
  if (in.namespaces.size() > 1) {
    bool group = stack.coschedule == StackPolicy::Coschedule::kScheduler ||
                 stack.coschedule == StackPolicy::Coschedule::kGang;
    diags.add(
        stack.source.str(), stack.display(),
        fmt::format("coschedule: the members' pods are in {} namespaces; {}", in.namespaces.size(),
                    group ? "a PodGroup gathers the pods of one"
                          : "the anchor mounts their claims, which live in one"),
        "put the co-scheduled members in one namespace, or split the stack");
    return;
  }
  if (stack.coschedule == StackPolicy::Coschedule::kGang) {
    int64_t min_count = stack.min_count ? stack.min_count : needs.pods;
    if (min_count > needs.pods) {
      diags.add(stack.source.str(), stack.display(),
                fmt::format("spec.coschedule.minCount {} is more than the stack's {} pods: the "
                            "gang could never be scheduled",
                            min_count, needs.pods),
                "lower minCount, or leave it out to make it the stack's pod count");
      return;
    }
    auto [workload, group] = make_gang(stack, in, min_count);
    adopt(objects, std::move(workload), [](const Object&) { return true; });
    needs.pod_group = adopt(objects, std::move(group), [](const Object&) { return true; });
    needs.upstream_gang = true;
    return;
  }
  if (stack.coschedule == StackPolicy::Coschedule::kScheduler) {
    Object made = make_pod_group(stack, in, stack.min_count ? stack.min_count : needs.pods);
    needs.pod_group = adopt(objects, std::move(made), [](const Object&) { return true; });
    return;
  }
  if (stack.name.size() + 7 > kMaxStatefulSetName) {
    diags.add(stack.source.str(), stack.display(),
              fmt::format("coschedule: the anchor {}-anchor would be a StatefulSet name longer "
                          "than {} characters",
                          stack.name, kMaxStatefulSetName),
              "shorten the Stack's name");
    return;
  }
  // A seed planter annotated before holds the anchor already: it is used again, as it is.
  size_t at = adopt(objects, make_anchor(stack, in), [&](const Object& o) {
    const json::string* l = string_in(o.labels(), kAnchorLabel);
    return l && *l == stack.name;
  });
  Object& anchor = objects[at];
  PolicyWriter w{stack, anchor, diags, true};
  PodTargets targets = pod_targets(anchor, kinds, {});
  StackMember member{at, {}};
  for (PodTarget& t : targets.targets) {
    w.write(t);
    StackPods pods = pod_kind(anchor, t);
    needs.requests += pods.asks;
    needs.pod_kinds.push_back(std::move(pods));
    member.affinity_paths.push_back(t.affinity_at);
    needs.pods += 1;
  }
  anchor.mutations.clear();  // planter made it: the whole object is planter's
  needs.anchor = at;
  needs.members.push_back(std::move(member));
}

}  // namespace planter
