// The annotations of other tools that say an object outlives its removal from the seed or the
// seed's uproot, honoured as those tools honour them (docs/annotations.md has the table):
//   helm.sh/resource-policy: keep               kept by prune and uproot (helm uninstall, upgrade)
//   argocd.argoproj.io/sync-options: Prune=false  kept by prune (Argo CD's prune)
//   argocd.argoproj.io/sync-options: Delete=false kept by uproot (Argo CD's app deletion)
//   kapp.k14s.io/delete-strategy: orphan        kept by prune and uproot (kapp orphans it)
// Each tool's annotations can be ignored (--ignore-annotations=helm,argocd,kapp).
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>

#include "plan/conventions.h"

namespace planter::plant {

enum class Removal { kPrune, kUproot };

// Why `live` (the object as its cluster holds it) is left alone by this removal, in the words
// the report prints ("argocd.argoproj.io/sync-options: Prune=false: left alone, as Argo CD's
// prune does"); nullopt when nothing keeps it.
std::optional<std::string> kept_by_tools(const boost::json::object& live, Removal removal,
                                         const Conventions& conventions);

}  // namespace planter::plant
