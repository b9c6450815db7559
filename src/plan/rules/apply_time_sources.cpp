// Rule "apply-time-mutation": an object with config.kubernetes.io/apply-time-mutation waits for
// each source its substitutions read, until the field they copy is set (`jsonpath={.status.x}`),
// on the source's cluster, which may be another one than the target's. The engine substitutes when
// it declares the object (src/plan/apply_time_mutation.h).
#include <fmt/format.h>

#include <algorithm>

#include "plan/apply_time_mutation.h"
#include "plan/rules.h"

namespace planter {

void require_apply_time_sources(const RuleContext& ctx, const Unit& unit,
                                std::vector<Requirement>& out) {
  if (!ctx.conventions.kpt) return;
  if (!string_in(ctx.index.annotations(unit.object), kApplyTimeMutationAnnotation)) return;
  const Object& o = ctx.objects[unit.object];
  bool report = ctx.reports_for(unit);
  auto subs = read_substitutions(o);
  if (!subs) {
    if (report)
      ctx.diags.add(o.where(), o.display(),
                    fmt::format("{}: {}", kApplyTimeMutationAnnotation, subs.error().message),
                    "each entry: sourceRef {group, kind, name, namespace}, sourcePath $.…, "
                    "targetPath $.…, and an optional token found in the target's string");
    return;
  }
  for (const Substitution& s : subs.value()) {
    // A sourceRef without a namespace: the target's namespace first, then cluster-scoped.
    auto found = ctx.index.by_key(s.group, s.kind, s.ns.empty() ? o.ref.ns : s.ns, s.name);
    if (found.empty() && s.ns.empty()) found = ctx.index.by_key(s.group, s.kind, "", s.name);
    std::string named = fmt::format("{}{}/{}{}", s.kind, s.group.empty() ? "" : "." + s.group,
                                    s.ns.empty() ? "" : s.ns + "/", s.name);
    if (found.empty()) {
      if (report)
        ctx.diags.add(o.where(), o.display(),
                      fmt::format("{}: the source {} is not in the seed",
                                  kApplyTimeMutationAnnotation, named),
                      "fix sourceRef (group, kind, namespace, name) or add the source to the seed");
      continue;
    }
    if (std::find(found.begin(), found.end(), unit.object) != found.end()) {
      if (report)
        ctx.diags.add(o.where(), o.display(),
                      fmt::format("{}: the source {} is the object itself",
                                  kApplyTimeMutationAnnotation, named),
                      "copy from another object");
      continue;
    }
    // read_substitutions has refused a sourcePath that does not parse.
    ctx.need_placed(
        unit, found, "apply-time-mutation", out,
        ReadinessPredicate::jsonpath(ReadinessPredicate::Type::kFieldSet, s.source_path).value(),
        /*own_ready_when=*/false);
  }
}

}  // namespace planter
