// Rule "depends-on": config.kubernetes.io/depends-on as kpt, Config Sync and cli-utils read it.
// Each comma-separated entry is a cli-utils object reference: `group/namespaces/ns/Kind/name` for
// a namespaced object, `group/Kind/name` for a cluster-scoped one, the group empty for the core
// group (`/namespaces/default/ConfigMap/settings`). cli-utils waits for the dependency to be
// reconciled; planter waits for it to be healthy (or for its ready-when), on its cluster. An entry
// that names nothing in the seed is an error, as for planter.nephio.org/dependencies.
#include <fmt/format.h>

#include <algorithm>

#include "model/strings.h"
#include "plan/rules.h"

namespace planter {

namespace {

struct Reference {
  std::string_view group, kind, ns, name;
};

Result<Reference> parse_reference(std::string_view text) {
  auto parts = split(text, '/');
  if (parts.size() == 5 && parts[1] == "namespaces" && !parts[2].empty() && !parts[3].empty() &&
      !parts[4].empty())
    return Reference{parts[0], parts[3], parts[2], parts[4]};
  if (parts.size() == 3 && !parts[1].empty() && !parts[2].empty())
    return Reference{parts[0], parts[1], {}, parts[2]};
  return Error{fmt::format(
      "\"{}\" is not group/namespaces/namespace/Kind/name (namespaced) or group/Kind/name "
      "(cluster-scoped)",
      text)};
}

}  // namespace

void require_depends_on(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  if (!ctx.conventions.kpt) return;
  const auto* deps = string_in(ctx.index.annotations(unit.object), kDependsOnAnnotation);
  if (!deps) return;
  const Object& o = ctx.objects[unit.object];
  // Problems are reported once per object, not once per cluster it goes to.
  bool report = ctx.reports_for(unit);
  for (std::string_view text : split_list(*deps)) {
    auto ref = parse_reference(text);
    if (!ref) {
      if (report)
        ctx.diags.add(o.where(), o.display(),
                      fmt::format("{}: {}", kDependsOnAnnotation, ref.error().message),
                      "e.g. apps/namespaces/default/StatefulSet/db or "
                      "rbac.authorization.k8s.io/ClusterRole/reader; the core group is empty: "
                      "/namespaces/default/ConfigMap/settings");
      continue;
    }
    auto found = ctx.index.by_key(ref->group, ref->kind, ref->ns, ref->name);
    if (found.empty()) {
      if (report)
        ctx.diags.add(
            o.where(), o.display(),
            fmt::format("{}: \"{}\" is not in the seed", kDependsOnAnnotation, text),
            fmt::format("fix the reference (the group, then namespaces/<namespace> for a "
                        "namespaced object), add the object to the seed, or list it in {} if "
                        "something else creates it",
                        kExternalDependenciesAnnotation));
      continue;
    }
    if (std::find(found.begin(), found.end(), unit.object) != found.end()) {
      ctx.report_self_reference(unit, kDependsOnAnnotation, text);
      continue;
    }
    ctx.need_placed(unit, found, "depends-on", out,
                    ReadinessPredicate::of(ReadinessPredicate::Type::kHealthy));
  }
}

}  // namespace planter
