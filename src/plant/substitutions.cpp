#include "plant/substitutions.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "plan/apply_time_mutation.h"
#include "plan/jsonpath.h"

namespace planter::plant {

namespace json = boost::json;

Result<bool> apply_substitutions(const Plan& plan, const Unit& unit, json::object& body,
                                 const ReadObject& read) {
  if (!plan.conventions.kpt || !plan.object_of(unit).annotation(kApplyTimeMutationAnnotation))
    return false;
  auto subs = read_substitutions(plan.object_of(unit));
  if (!subs) return subs.error();  // planning reported it already
  for (const Substitution& s : subs.value()) {
    const Requirement* source = nullptr;
    for (const Requirement& r : unit.requirements) {
      const ObjectRef& t = plan.target(r);
      // The plan keeps one requirement per object and cluster: another rule's (cluster-ready,
      // dependencies) may stand for the source; its field is then checked here.
      if (t.kind == s.kind && t.name == s.name && t.group() == s.group &&
          (s.ns.empty() || t.ns == s.ns))
        source = &r;
    }
    if (!source) return Error{fmt::format("no requirement on the source {}/{}", s.kind, s.name)};
    const ObjectRef& ref = plan.target(*source);
    std::optional<json::object> object = read(source->cluster, ref);
    if (!object)
      return Error{fmt::format("{} on {}: not in sight to copy {} from", ref.short_form(),
                               source->cluster, s.source_path)};
    auto steps = parse_jsonpath(s.source_path);
    const json::value* value = steps ? locate_jsonpath(*object, steps.value()) : nullptr;
    if (!value)
      return Error{
          fmt::format("{} on {}: {} is not set", ref.short_form(), source->cluster, s.source_path)};
    if (auto done = substitute(body, s, *value); !done) return done.error();
  }
  return true;
}

}  // namespace planter::plant
