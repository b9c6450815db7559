// The Job controller's part in workload-aware scheduling (KEP-5547, the WorkloadWithJob gate; on
// wherever the sim serves the gang API): a Job of a fixed shape (completionMode Indexed,
// parallelism above 1 and equal to completions, a pod template naming no PodGroup of its own) is
// gang-scheduled. Before its first pod the controller makes, in this order, the Workload `<job>`
// (controllerRef the Job, one podGroupTemplate `job` with a gang policy of minCount parallelism,
// owned by the Job) and a PodGroup `<job>-<5 chars>` from that template (podGroupTemplateRef to
// it, the same policy, owned by the Job and, not as controller, by the Workload); its pods join
// that PodGroup through spec.schedulingGroup. A PodGroup of the Job found again (in its namespace,
// referring to its Workload, owned by it) is used again.
#include "sim/workloads/job_pod_groups.h"

#include <boost/json/parse.hpp>
#include <memory>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/pods.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kTemplateName = "job";
constexpr const char* kPodGroups = "scheduling.k8s.io/podgroups";

}  // namespace

bool gang_scheduled_job(const json::object& job) {
  const json::object* spec = object_at(job, "spec");
  if (string_at(spec, "completionMode") != "Indexed") return false;
  const json::value* completions = spec ? spec->if_contains("completions") : nullptr;
  int64_t parallelism = int_at(spec, "parallelism", 1);
  if (parallelism <= 1 || !completions || !completions->is_int64() ||
      completions->as_int64() != parallelism)
    return false;
  const json::object* pod_spec = object_at(object_at(spec, "template"), "spec");
  return !object_at(pod_spec, "schedulingGroup");
}

std::string job_pod_group(ControllerKit& kit, const json::object& job,
                          const std::string& component) {
  const auto versions = kit.cluster().catalog().versions_of(kPodGroups);
  if (versions.empty() || !gang_scheduled_job(job)) return {};
  std::string api = "scheduling.k8s.io/" + versions.front()->version;
  std::string ns = meta_string(job, "namespace"), name = meta_string(job, "name");
  std::string uid = meta_string(job, "uid");
  int64_t min_count = int_at(object_at(job, "spec"), "parallelism", 1);
  json::object policy{{"gang", {{"minCount", min_count}}}};

  StoredObject workload = kit.store().get("scheduling.k8s.io/workloads", ns, name);
  if (!workload) {
    json::object made{
        {"apiVersion", api},
        {"kind", "Workload"},
        {"metadata",
         {{"name", name},
          {"namespace", ns},
          {"ownerReferences", json::array{controller_reference(job)}}}},
        {"spec",
         {{"controllerRef", {{"apiGroup", "batch"}, {"kind", "Job"}, {"name", name}}},
          {"podGroupTemplates",
           json::array{json::object{{"name", kTemplateName}, {"schedulingPolicy", policy}}}}}}};
    Response r = kit.write("POST", "/apis/" + api + "/namespaces/" + ns + "/workloads",
                           "application/json", made, component);
    if (r.status != 201) return {};
    json::value body = json::parse(r.body);
    workload = std::make_shared<const json::object>(body.as_object());
  }
  // The Job's own, through the store's owner index (not every PodGroup of the cluster).
  for (const auto& [storage_key, pg] : kit.store().dependents(uid)) {
    if (storage_key != kPodGroups) continue;
    const json::object* ref =
        object_at(object_at(object_at(*pg, "spec"), "podGroupTemplateRef"), "workload");
    if (string_at(ref, "workloadName") == name) return meta_string(*pg, "name");
  }
  json::object workload_ref{{"apiVersion", api},
                            {"kind", "Workload"},
                            {"name", name},
                            {"uid", meta_string(*workload, "uid")}};
  json::object group{
      {"apiVersion", api},
      {"kind", "PodGroup"},
      {"metadata",
       {{"generateName", name + "-"},
        {"namespace", ns},
        {"ownerReferences", json::array{controller_reference(job), std::move(workload_ref)}}}},
      {"spec",
       {{"podGroupTemplateRef",
         {{"workload", {{"workloadName", name}, {"podGroupTemplateName", kTemplateName}}}}},
        {"schedulingPolicy", policy}}}};
  Response r = kit.write("POST", "/apis/" + api + "/namespaces/" + ns + "/podgroups",
                         "application/json", group, component);
  if (r.status != 201) return {};
  return meta_string(json::parse(r.body).as_object(), "name");
}

}  // namespace planter::sim
