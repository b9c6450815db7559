// The ResourceClaim controller, as kube-controller-manager's of that name behaves (Dynamic
// Resource Allocation, "ResourceClaimTemplate"):
// - a pod's claim from a template gets a ResourceClaim of its own, named
//   <pod>-<claim>-<5 characters>, owned by the pod (so it goes when the pod goes), annotated
//   resource.kubernetes.io/pod-claim-name, with the template's spec.spec; the pod's
//   status.resourceClaimStatuses then names it;
// - a claim's status.reservedFor loses the pods that are gone or finished, and a claim no longer
//   reserved for anyone is deallocated (its status.allocation removed), which frees its devices.
#include <boost/json.hpp>
#include <set>
#include <string>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/kube_scheduler/cache.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kClaimController = "resource-claim-controller";
constexpr const char* kClaims = "resource.k8s.io/resourceclaims";
constexpr const char* kPodClaimName = "resource.kubernetes.io/pod-claim-name";

class ResourceClaimController : public WorkloadController {
 public:
  explicit ResourceClaimController(ControllerKit& kit)
      : kit_(kit),
        pods_(kit,
              [this](const std::string& ns, const std::string& name) { reconcile_pod(ns, name); }),
        claims_(kit, [this](const std::string& ns, const std::string& name) {
          reconcile_claim(ns, name);
        }) {
    kit_.watch("/pods", [this](const Change& ch) {
      pods_.add(ch.ns, meta_string(*ch.object, "name"));
      // A pod going or finishing releases the claims reserved for it.
      if (const json::array* claims =
              array_at(object_at(*ch.object, "status"), "resourceClaimStatuses"))
        for (const json::value& c : *claims)
          if (c.is_object()) claims_.add(ch.ns, string_at(c.get_object(), "resourceClaimName"));
      std::string extended =
          string_at(object_at(object_at(*ch.object, "status"), "extendedResourceClaimStatus"),
                    "resourceClaimName");
      if (!extended.empty()) claims_.add(ch.ns, extended);
      if (const json::array* refs = array_at(object_at(*ch.object, "spec"), "resourceClaims"))
        for (const json::value& r : *refs)
          if (r.is_object() && !string_at(r.get_object(), "resourceClaimName").empty())
            claims_.add(ch.ns, string_at(r.get_object(), "resourceClaimName"));
    });
    claims_.follow(kClaims);
    for (const auto& [_, pod] : kit_.store().bucket("/pods"))
      pods_.add(meta_string(*pod, "namespace"), meta_string(*pod, "name"));
  }

 private:
  void reconcile_pod(const std::string& ns, const std::string& name) {
    StoredObject pod = kit_.store().get("/pods", ns, name);
    if (!pod || !meta_string(*pod, "deletionTimestamp").empty() || sched::pod_finished(*pod))
      return;
    const json::array* refs = array_at(object_at(*pod, "spec"), "resourceClaims");
    if (!refs) return;
    const json::object* status = object_at(*pod, "status");
    json::array statuses;
    if (const json::array* have = array_at(status, "resourceClaimStatuses")) statuses = *have;
    bool changed = false;
    for (const json::value& ref : *refs) {
      if (!ref.is_object()) continue;
      std::string claim = string_at(ref.get_object(), "name");
      std::string tmpl = string_at(ref.get_object(), "resourceClaimTemplateName");
      if (tmpl.empty()) continue;
      bool recorded = false;
      for (const json::value& s : statuses)
        recorded = recorded || (s.is_object() && string_at(s.get_object(), "name") == claim);
      if (recorded) continue;
      std::string made = existing_claim(ns, meta_string(*pod, "uid"), claim);
      if (made.empty()) made = create_claim(*pod, claim, tmpl);
      if (made.empty()) continue;  // no template yet: tried again when the pod changes
      statuses.push_back(json::object{{"name", claim}, {"resourceClaimName", made}});
      changed = true;
    }
    if (!changed) return;
    json::object st = status ? *status : json::object{};
    st["resourceClaimStatuses"] = std::move(statuses);
    kit_.put_status(object_path("/pods", *pod), *pod, std::move(st), kClaimController);
  }

  // A claim this controller already made for the pod's claim (a restart between the create and
  // the pod's status).
  std::string existing_claim(const std::string& ns, const std::string& pod_uid,
                             const std::string& claim) {
    for (const auto& [storage_key, c] : kit_.store().dependents(pod_uid)) {
      if (storage_key != kClaims || meta_string(*c, "namespace") != ns) continue;
      const json::object* ann = object_at(object_at(*c, "metadata"), "annotations");
      if (string_at(ann, kPodClaimName) == claim) return meta_string(*c, "name");
    }
    return {};
  }

  std::string create_claim(const json::object& pod, const std::string& claim,
                           const std::string& tmpl_name) {
    std::string ns = meta_string(pod, "namespace"), pod_name = meta_string(pod, "name");
    StoredObject tmpl = kit_.store().get("resource.k8s.io/resourceclaimtemplates", ns, tmpl_name);
    if (!tmpl) {
      kit_.events(kClaimController)
          .record(pod, "Warning", "FailedResourceClaimCreation",
                  "PodResourceClaim " + claim + ": resource claim template \"" + tmpl_name +
                      "\": resourceclaimtemplate.resource.k8s.io \"" + tmpl_name + "\" not found");
      return {};
    }
    const json::object* inner = object_at(object_at(*tmpl, "spec"), "metadata");
    const json::object* spec = object_at(object_at(*tmpl, "spec"), "spec");
    json::object meta{{"generateName", pod_name + "-" + claim + "-"},
                      {"namespace", ns},
                      {"annotations", json::object{{kPodClaimName, claim}}},
                      {"ownerReferences", json::array{json::object{{"apiVersion", "v1"},
                                                                   {"kind", "Pod"},
                                                                   {"name", pod_name},
                                                                   {"uid", meta_string(pod, "uid")},
                                                                   {"controller", true},
                                                                   {"blockOwnerDeletion", true}}}}};
    if (const json::object* labels = object_at(inner, "labels")) meta["labels"] = *labels;
    if (const json::object* ann = object_at(inner, "annotations"))
      for (const auto& [k, v] : *ann) meta["annotations"].as_object()[k] = v;
    json::object body{{"apiVersion", "resource.k8s.io/v1"},
                      {"kind", "ResourceClaim"},
                      {"metadata", std::move(meta)},
                      {"spec", spec ? *spec : json::object{}}};
    Response r = kit_.write("POST", "/apis/resource.k8s.io/v1/namespaces/" + ns + "/resourceclaims",
                            "application/json", body, kClaimController);
    if (r.status != 201) return {};
    auto made = json::parse(r.body);
    return made.is_object() ? meta_string(made.as_object(), "name") : std::string();
  }

  // Drops consumers that are gone or finished; deallocates a claim nobody holds any more.
  void reconcile_claim(const std::string& ns, const std::string& name) {
    StoredObject claim = kit_.store().get(kClaims, ns, name);
    if (!claim) return;
    const json::object* status = object_at(*claim, "status");
    const json::array* reserved = array_at(status, "reservedFor");
    if (!reserved && !object_at(status, "allocation")) return;
    json::array keep;
    if (reserved)
      for (const json::value& r : *reserved) {
        if (!r.is_object()) continue;
        StoredObject pod = kit_.store().get("/pods", ns, string_at(r.get_object(), "name"));
        bool alive = pod && meta_string(*pod, "uid") == string_at(r.get_object(), "uid") &&
                     !sched::pod_finished(*pod);
        if (alive || string_at(r.get_object(), "resource") != "pods") keep.push_back(r);
      }
    json::object st = *status;
    if (keep.empty()) {
      st.erase("reservedFor");
      st.erase("allocation");
    } else {
      st["reservedFor"] = std::move(keep);
    }
    kit_.put_status(object_path(kClaims, *claim), *claim, std::move(st), kClaimController);
  }

  ControllerKit& kit_;
  WorkQueue pods_;
  WorkQueue claims_;
};

}  // namespace

std::unique_ptr<WorkloadController> start_resource_claim_controller(ControllerKit& kit) {
  return std::make_unique<ResourceClaimController>(kit);
}

}  // namespace planter::sim
