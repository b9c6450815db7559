#include "plan/rules/release_order.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>

#include "plan/rules.h"

namespace planter {

namespace {

// Helm's install order of kinds (its ties between hooks of one weight and name); others after.
int helm_kind_rank(std::string_view kind) {
  static constexpr std::string_view kOrder[] = {"Namespace",
                                                "NetworkPolicy",
                                                "ResourceQuota",
                                                "LimitRange",
                                                "PodSecurityPolicy",
                                                "PodDisruptionBudget",
                                                "ServiceAccount",
                                                "Secret",
                                                "SecretList",
                                                "ConfigMap",
                                                "StorageClass",
                                                "PersistentVolume",
                                                "PersistentVolumeClaim",
                                                "CustomResourceDefinition",
                                                "ClusterRole",
                                                "ClusterRoleList",
                                                "ClusterRoleBinding",
                                                "ClusterRoleBindingList",
                                                "Role",
                                                "RoleList",
                                                "RoleBinding",
                                                "RoleBindingList",
                                                "Service",
                                                "DaemonSet",
                                                "Pod",
                                                "ReplicationController",
                                                "ReplicaSet",
                                                "Deployment",
                                                "HorizontalPodAutoscaler",
                                                "StatefulSet",
                                                "Job",
                                                "CronJob",
                                                "IngressClass",
                                                "Ingress",
                                                "APIService"};
  for (size_t i = 0; i < std::size(kOrder); ++i)
    if (kOrder[i] == kind) return static_cast<int>(i);
  return static_cast<int>(std::size(kOrder));
}

int phase_rank(InstallPhase p) {
  return p == InstallPhase::kBefore ? 0 : p == InstallPhase::kWith ? 1 : 2;
}

}  // namespace

bool applied_first(const Object& o) {
  bool first_kind =
      (o.ref.kind == "Namespace" && o.ref.group().empty()) ||
      (o.ref.kind == "CustomResourceDefinition" && o.ref.group() == "apiextensions.k8s.io");
  return first_kind && !o.annotation(kHelmHookAnnotation) && !o.annotation(kArgoHookAnnotation) &&
         !o.annotation(kArgoSyncWaveAnnotation);
}

ReleaseOrder ReleaseOrder::build(const std::vector<Object>& objects, const std::vector<Unit>& units,
                                 const SeedIndex& index, const Conventions& conventions) {
  ReleaseOrder r;
  size_t n = units.size();
  r.release_of_.assign(n, -1);
  r.helm_phase_.assign(n, InstallPhase::kWith);
  r.helm_position_.assign(n, 0);
  r.previous_of_.assign(n, -1);

  // Most seeds name no hook and no wave: nothing to order then, and nothing to read.
  std::vector<size_t> annotated;
  for (size_t i = 0; i < objects.size(); ++i)
    if (has_tool_annotations(index.annotations(i))) annotated.push_back(i);
  if (annotated.empty()) return r;
  // Each object's hooks, read once.
  std::vector<HelmHook> helm(objects.size());
  std::vector<ArgoSync> argo(objects.size());
  bool any_hook = false, any_argo = false;
  for (size_t i : annotated) {
    // Malformed annotations were reported when the seed was set aside: they order nothing.
    if (auto h = read_helm_hook(objects[i]); conventions.helm && h) helm[i] = h.value();
    if (auto a = read_argo_sync(objects[i]); conventions.argocd && a) argo[i] = a.value();
    any_hook = any_hook || helm[i].hook;
    any_argo = any_argo || argo[i].annotated;
  }

  if (any_hook) {
    // Releases: (seed file, cluster). Only those with a hook are kept.
    std::map<std::pair<std::string_view, uint32_t>, std::vector<size_t>> by_release;
    for (size_t u = 0; u < n; ++u) {
      const Object& o = objects[units[u].object];
      if (helm[units[u].object].hook) r.helm_phase_[u] = helm[units[u].object].phase;
      by_release[{o.source.file, units[u].cluster_index}].push_back(u);
    }
    auto weight = [&](size_t u) { return helm[units[u].object].weight; };
    for (auto& [key, members] : by_release) {
      Release rel;
      for (size_t u : members) {
        if (r.helm_phase_[u] == InstallPhase::kBefore)
          rel.before.push_back(u);
        else if (r.helm_phase_[u] == InstallPhase::kAfter)
          rel.after.push_back(u);
        else
          rel.with.push_back(u);
      }
      if (rel.before.empty() && rel.after.empty()) continue;
      auto helm_order = [&](size_t a, size_t b) {
        const ObjectRef& x = objects[units[a].object].ref;
        const ObjectRef& y = objects[units[b].object].ref;
        return std::tuple(weight(a), std::string_view(x.name), helm_kind_rank(x.kind), a) <
               std::tuple(weight(b), std::string_view(y.name), helm_kind_rank(y.kind), b);
      };
      std::sort(rel.before.begin(), rel.before.end(), helm_order);
      std::sort(rel.after.begin(), rel.after.end(), helm_order);
      auto at = static_cast<int32_t>(r.releases_.size());
      for (size_t u : members) r.release_of_[u] = at;
      for (size_t i = 0; i < rel.before.size(); ++i)
        r.helm_position_[rel.before[i]] = static_cast<uint32_t>(i);
      for (size_t i = 0; i < rel.after.size(); ++i)
        r.helm_position_[rel.after[i]] = static_cast<uint32_t>(i);
      r.releases_.push_back(std::move(rel));
    }
  }

  if (any_argo) {
    // Sync steps: per cluster, (phase, wave), only where some object has an Argo CD annotation.
    std::map<uint32_t, std::map<std::pair<int, int>, std::vector<size_t>>> by_cluster;
    std::map<uint32_t, bool> annotated;
    for (size_t u = 0; u < n; ++u) {
      const ArgoSync& s = argo[units[u].object];
      uint32_t c = units[u].cluster_index;
      annotated[c] = annotated[c] || s.annotated;
      by_cluster[c][{phase_rank(s.phase), s.wave}].push_back(u);
    }
    for (auto& [cluster, steps] : by_cluster) {
      if (!annotated[cluster] || steps.size() < 2) continue;
      int32_t previous = -1;
      for (auto& [key, members] : steps) {
        for (size_t u : members) r.previous_of_[u] = previous;
        previous = static_cast<int32_t>(r.steps_.size());
        r.steps_.push_back(std::move(members));
      }
    }
  }
  return r;
}

FamilyIndex prepare_release_order(const RuleContext& ctx) {
  return FamilyIndex::of(ReleaseOrder::build(ctx.objects, ctx.units, ctx.index, ctx.conventions));
}

ReleaseOrder::HelmPlace ReleaseOrder::helm(size_t unit) const {
  if (unit >= release_of_.size() || release_of_[unit] < 0) return {};
  return {&releases_[static_cast<size_t>(release_of_[unit])], helm_phase_[unit],
          helm_position_[unit]};
}

std::span<const size_t> ReleaseOrder::previous_step(size_t unit) const {
  if (unit >= previous_of_.size() || previous_of_[unit] < 0) return {};
  return steps_[static_cast<size_t>(previous_of_[unit])];
}

}  // namespace planter
