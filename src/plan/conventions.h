// The conventions of other tools that planter honours (docs/annotations.md): kpt's local config
// and depends-on (cli-utils, Config Sync), Helm's hooks, Argo CD's sync waves and hooks. Each can
// be switched off, for a user who wants planter's own rules only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace planter {

struct Conventions {
  bool kpt = true;   // config.kubernetes.io/local-config, Kptfile, depends-on, apply-time-mutation
  bool helm = true;  // helm.sh/hook, hook-weight, resource-policy
  bool argocd = true;  // argocd.argoproj.io/sync-wave, hook, sync-options Prune/Delete=false
  bool kapp = true;    // kapp.k14s.io/delete-strategy: orphan

  // From --ignore-annotations=kpt,helm,argocd (each item one of those names).
  static Result<Conventions> ignoring(const std::vector<std::string>& names);
};

// The names --ignore-annotations takes, for help texts and errors: "kpt, helm, argocd, kapp".
std::string_view convention_names();

}  // namespace planter
