// How Helm and Argo CD read an object's hook annotations: when an install applies it (before the
// rest of its release, with it, after it, or never) and its weight or wave. Pure readers; the
// rules helm-hooks and sync-waves order units by what these say (docs/annotations.md).
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/object.h"
#include "model/result.h"

namespace planter {

inline constexpr std::string_view kHelmHookAnnotation = "helm.sh/hook";
inline constexpr std::string_view kHelmHookWeightAnnotation = "helm.sh/hook-weight";
inline constexpr std::string_view kHelmResourcePolicyAnnotation = "helm.sh/resource-policy";
inline constexpr std::string_view kArgoHookAnnotation = "argocd.argoproj.io/hook";
inline constexpr std::string_view kArgoSyncWaveAnnotation = "argocd.argoproj.io/sync-wave";

// True when `annotations` (metadata.annotations, or null) holds a key of the tools whose
// conventions planter honours (helm.sh/, argocd.argoproj.io/, config.kubernetes.io/): one pass over
// an object's few annotations, so that the others are skipped at once.
bool has_tool_annotations(const boost::json::object* annotations);

// When an install applies an object: Helm's pre-install and Argo CD's PreSync come before the
// rest of the release, post-install and PostSync after it; hooks of other events never.
enum class InstallPhase { kBefore, kWith, kAfter, kNever };

struct HelmHook {
  bool hook = false;  // it has helm.sh/hook
  InstallPhase phase = InstallPhase::kWith;
  int weight = 0;
  std::vector<std::string> events;  // lowercased, as listed ("pre-install", "pre-upgrade")
  std::string never_why;            // for kNever: "a test hook runs on `helm test`"
};

// Helm 3's reading: events are comma-separated and case-insensitive; a hook with an event Helm
// does not know is skipped whole; helm.sh/hook-weight is an integer (an error otherwise).
Result<HelmHook> read_helm_hook(const Object& object);

struct ArgoSync {
  bool annotated = false;  // it has argocd.argoproj.io/hook or sync-wave
  InstallPhase phase = InstallPhase::kWith;
  int wave = 0;
  std::string never_why;
};

// Argo CD's reading: argocd.argoproj.io/hook (PreSync, Sync, PostSync, SyncFail, PostDelete,
// Skip), or else a Helm hook mapped as Argo CD maps it (pre-install and pre-upgrade to PreSync,
// post-install and post-upgrade to PostSync); the wave from sync-wave, else helm.sh/hook-weight.
Result<ArgoSync> read_argo_sync(const Object& object);

}  // namespace planter
