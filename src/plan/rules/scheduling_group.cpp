// Rule "scheduling-group": Kubernetes' own gangs in the order kube-apiserver and kube-scheduler
// need them (kubernetes.io "PodGroup Lifecycle": Workload, then PodGroup, then pods). A
// scheduling.k8s.io PodGroup made from a Workload's template (spec.podGroupTemplateRef.workload)
// waits for that Workload to exist: kube-apiserver refuses it before. An object whose pods join a
// PodGroup of the seed (spec.schedulingGroup.podGroupName of a Pod, or of the pod template of a
// Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or CronJob) waits for that PodGroup, so that
// no pod reaches the scheduler before its gang (it would wait unseen in PreEnqueue). A PodGroup
// the seed does not hold is left to whoever makes it (the Job controller makes its own).
#include <string>
#include <string_view>

#include "plan/rules.h"

namespace planter {

namespace {

constexpr std::string_view kRule = "scheduling-group";

// The pod spec of a Pod or of a built-in workload's pod template; null for other kinds.
const boost::json::object* pod_spec_of(const Object& o) {
  std::string_view group = o.ref.group();
  const std::string& kind = o.ref.kind;
  auto object_at = [&](std::initializer_list<std::string_view> path) {
    const boost::json::value* v = find_path(o.body, path);
    return v && v->is_object() ? &v->as_object() : nullptr;
  };
  if (group.empty() && kind == "Pod") return object_at({"spec"});
  if ((group == "apps" && (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet" ||
                           kind == "ReplicaSet")) ||
      (group == "batch" && kind == "Job"))
    return object_at({"spec", "template", "spec"});
  if (group == "batch" && kind == "CronJob")
    return object_at({"spec", "jobTemplate", "spec", "template", "spec"});
  return nullptr;
}

}  // namespace

void require_scheduling_group(const RuleContext& ctx, const Unit& unit,
                              std::vector<Requirement>& out) {
  const Object& o = ctx.objects[unit.object];
  const auto exists = ReadinessPredicate::of(ReadinessPredicate::Type::kExists);
  if (o.ref.group() == "scheduling.k8s.io" && o.ref.kind == "PodGroup") {
    const auto* workload =
        find_string(o.body, {"spec", "podGroupTemplateRef", "workload", "workloadName"});
    if (workload && !workload->empty())
      out.push_back(
          ctx.need(ObjectRef{o.ref.api_version, "Workload", o.ref.ns, std::string(*workload)},
                   unit.cluster_index, exists, kRule));
    return;
  }
  const boost::json::object* spec = pod_spec_of(o);
  if (!spec) return;
  const auto* group = find_string(*spec, {"schedulingGroup", "podGroupName"});
  if (!group || group->empty()) return;
  for (size_t found : ctx.index.by_key("scheduling.k8s.io", "PodGroup", o.ref.ns, *group)) {
    out.push_back(ctx.need(found, unit.cluster_index, exists, kRule));
    return;
  }
}

}  // namespace planter
