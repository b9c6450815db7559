#include "seed/builtin_kind_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "model/strings.h"

namespace planter {

namespace {

// API versions that Kubernetes stopped serving, from its deprecated API migration guide:
// {apiVersion, kinds (empty: every kind of that version), the release that removed them}.
struct RemovedApi {
  std::string_view api_version;
  std::vector<std::string_view> kinds;
  std::string_view removed_in;
};

const std::vector<RemovedApi>& removed_apis() {
  static const std::vector<RemovedApi> kRemoved = {
      {"extensions/v1beta1", {}, "1.22"},
      {"apps/v1beta1", {}, "1.16"},
      {"apps/v1beta2", {}, "1.16"},
      {"admissionregistration.k8s.io/v1beta1", {}, "1.22"},
      {"apiextensions.k8s.io/v1beta1", {}, "1.22"},
      {"apiregistration.k8s.io/v1beta1", {}, "1.22"},
      {"authentication.k8s.io/v1beta1", {}, "1.22"},
      {"authorization.k8s.io/v1beta1", {}, "1.22"},
      {"certificates.k8s.io/v1beta1", {}, "1.22"},
      {"coordination.k8s.io/v1beta1", {}, "1.22"},
      {"networking.k8s.io/v1beta1", {"Ingress", "IngressClass"}, "1.22"},
      {"rbac.authorization.k8s.io/v1beta1", {}, "1.22"},
      {"rbac.authorization.k8s.io/v1alpha1", {}, "1.22"},
      {"scheduling.k8s.io/v1beta1", {}, "1.22"},
      {"storage.k8s.io/v1beta1",
       {"CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"},
       "1.22"},
      {"batch/v1beta1", {}, "1.25"},
      {"discovery.k8s.io/v1beta1", {}, "1.25"},
      {"events.k8s.io/v1beta1", {}, "1.25"},
      {"autoscaling/v2beta1", {}, "1.25"},
      {"policy/v1beta1", {}, "1.25"},
      {"node.k8s.io/v1beta1", {}, "1.25"},
      {"flowcontrol.apiserver.k8s.io/v1beta1", {}, "1.26"},
      {"autoscaling/v2beta2", {}, "1.26"},
      {"storage.k8s.io/v1beta1", {"CSIStorageCapacity"}, "1.27"},
      {"flowcontrol.apiserver.k8s.io/v1beta2", {}, "1.29"},
      {"flowcontrol.apiserver.k8s.io/v1beta3", {}, "1.32"},
  };
  return kRemoved;
}

const RemovedApi* removed(const ObjectRef& r) {
  for (const RemovedApi& api : removed_apis())
    if (api.api_version == r.api_version &&
        (api.kinds.empty() ||
         std::find(api.kinds.begin(), api.kinds.end(), r.kind) != api.kinds.end()))
      return &api;
  return nullptr;
}

std::string api_version_of(std::string_view group, std::string_view version) {
  return group.empty() ? std::string(version) : fmt::format("{}/{}", group, version);
}

}  // namespace

void check_builtin_kind(const Object& o, const KindInfo* info, const KindTable& kinds,
                        Diagnostics& diags) {
  std::string_view group = o.ref.group();
  if (info && !info->builtin) return;  // a CRD of the seed serves it
  if (info && std::find(info->versions.begin(), info->versions.end(), o.ref.version()) !=
                  info->versions.end())
    return;
  if (const RemovedApi* gone = removed(o.ref)) {
    std::string now =
        info ? fmt::format("; use apiVersion: {}", api_version_of(group, info->versions.front()))
             : "";
    diags.warn(o.where(), o.display(),
               fmt::format("{} was removed in Kubernetes {}: only older clusters serve it, and on "
                           "any other it waits for its kind forever{}",
                           o.ref.api_version, gone->removed_in, now));
    return;
  }
  if (!kinds.is_builtin_group(group)) return;  // a CRD the cluster has may serve it
  std::string no_match =
      fmt::format("no matches for kind \"{}\" in version \"{}\"", o.ref.kind, o.ref.api_version);
  if (!info) {
    std::string best;
    size_t best_distance = 3;
    for (const std::string& k : kinds.kinds_in_group(group))
      if (size_t d = edit_distance(k, o.ref.kind); d < best_distance) best = k, best_distance = d;
    std::string where = group.empty() ? "the core group" : fmt::format("group {}", group);
    diags.add(o.where(), o.display(),
              fmt::format("{}: Kubernetes serves no kind {} in {}", no_match, o.ref.kind, where),
              best.empty() ? fmt::format("check the kind; `kubectl api-resources --api-group={}` "
                                         "lists the kinds of {}",
                                         group, where)
                           : fmt::format("did you mean kind: {}?", best));
    return;
  }
  std::string served;
  for (const std::string& v : info->versions)
    served += (served.empty() ? "" : ", ") + api_version_of(group, v);
  diags.add(o.where(), o.display(),
            fmt::format("{}: Kubernetes serves {} as {}", no_match, info->kind, served),
            fmt::format("use apiVersion: {}", api_version_of(group, info->versions.front())));
}

}  // namespace planter
