// Rule "dependencies": what the author or a plugin wrote in planter.nephio.org/dependencies
// (objects of the seed) and planter.nephio.org/external-dependencies (objects something else
// creates).
//
// An entry is the proof-of-concept ID `apiVersion|kind|namespace|name`, or kubectl's short form
// `Kind/name` or `Kind/namespace/name` (`Kind.group/...` when the kind name is ambiguous).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "model/strings.h"
#include "plan/rules.h"

namespace planter {

namespace json = boost::json;

namespace {

struct Entry {
  std::string api_version;  // empty in the short form
  bool ns_given = true;     // false for Kind/name: the dependent's namespace, as in kubectl
  std::string group;        // from `Kind.group`, or from api_version
  bool group_given = false;
  std::string kind, ns, name;
};

Result<Entry> parse_entry(std::string_view text) {
  Entry e;
  if (text.find('|') != std::string_view::npos) {
    auto parts = split(text, '|');
    if (parts.size() != 4 || parts[0].empty() || parts[1].empty() || parts[3].empty())
      return Error{fmt::format("\"{}\" is not apiVersion|kind|namespace|name", text)};
    e.api_version = std::string(parts[0]);
    e.group = std::string(split_api_version(parts[0]).first);
    e.group_given = true;
    e.kind = std::string(parts[1]);
    e.ns = std::string(parts[2]);
    e.name = std::string(parts[3]);
    return e;
  }
  auto parts = split(text, '/');
  if (parts.size() < 2 || parts.size() > 3 || parts.front().empty() || parts.back().empty())
    return Error{
        fmt::format("\"{}\" is not Kind/name, Kind/namespace/name or "
                    "apiVersion|kind|namespace|name",
                    text)};
  std::string_view kind = parts[0];
  if (auto dot = kind.find('.'); dot != std::string_view::npos) {
    e.group = std::string(kind.substr(dot + 1));
    e.group_given = true;
    kind = kind.substr(0, dot);
  }
  e.kind = std::string(kind);
  if (parts.size() == 3)
    e.ns = std::string(parts[1]);
  else
    e.ns_given = false;
  e.name = std::string(parts.back());
  return e;
}

// The seed objects an entry names (all with one key), or an error when it is ambiguous.
// `Kind/name` names a cluster-scoped object or one in the dependent's namespace `ns`.
Result<std::vector<size_t>> find_in_seed(const RuleContext& ctx, const Entry& e,
                                         const std::string& ns) {
  if (e.group_given && e.ns_given) {
    auto found = ctx.index.by_key(e.group, e.kind, e.ns, e.name);
    return std::vector<size_t>(found.begin(), found.end());
  }
  std::set<std::string> groups;
  std::vector<size_t> found;
  for (size_t i : ctx.index.of_kind_name(e.kind)) {
    const ObjectRef& r = ctx.objects[i].ref;
    if (r.name != e.name || (e.group_given && r.group() != e.group)) continue;
    if (e.ns_given ? r.ns != e.ns : !r.ns.empty() && r.ns != ns) continue;
    groups.emplace(r.group());
    found.push_back(i);
  }
  if (groups.size() > 1)
    return Error{fmt::format("{}/{} is ambiguous: kind {} exists in groups {}", e.kind, e.name,
                             e.kind, fmt::join(groups, ", "))};
  return found;
}

// The apiVersion of an external entry: given, or the one built-in kind with that name.
std::optional<std::string> external_api_version(const RuleContext& ctx, const Entry& e) {
  if (!e.api_version.empty()) return e.api_version;
  static const char* const kCoreGroups[] = {"",
                                            "apps",
                                            "batch",
                                            "rbac.authorization.k8s.io",
                                            "networking.k8s.io",
                                            "policy",
                                            "scheduling.k8s.io",
                                            "node.k8s.io",
                                            "storage.k8s.io",
                                            "admissionregistration.k8s.io",
                                            "apiextensions.k8s.io",
                                            "apiregistration.k8s.io",
                                            "coordination.k8s.io",
                                            "discovery.k8s.io"};
  for (const char* g : kCoreGroups) {
    if (e.group_given && e.group != g) continue;
    const KindInfo* info = ctx.kinds.find(g, e.kind);
    if (!info || info->versions.empty()) continue;
    std::string v = info->versions.front();
    for (const auto& cand : info->versions)
      if (cand == "v1") v = cand;
    return info->group.empty() ? v : info->group + "/" + v;
  }
  return std::nullopt;
}

}  // namespace

void require_explicit_dependencies(const RuleContext& ctx, const Unit& unit,
                                   std::vector<Requirement>& out) {
  const Object& o = ctx.objects[unit.object];
  const json::object* annotations = ctx.index.annotations(unit.object);
  if (!annotations) return;
  // Problems are reported once per object, not once per cluster it goes to.
  bool report = ctx.reports_for(unit);

  if (const auto* deps = string_in(annotations, kDependenciesAnnotation)) {
    for (std::string_view text : split_list(*deps)) {
      auto entry = parse_entry(text);
      if (!entry) {
        if (report)
          ctx.diags.add(o.where(), o.display(),
                        fmt::format("{}: {}", kDependenciesAnnotation, entry.error().message),
                        "write apiVersion|kind|namespace|name, Kind/name or Kind/namespace/name");
        continue;
      }
      auto found = find_in_seed(ctx, entry.value(), o.ref.ns);
      if (!found || found->empty()) {
        if (report)
          ctx.diags.add(
              o.where(), o.display(),
              found ? fmt::format("{}: \"{}\" is not in the seed", kDependenciesAnnotation, text)
                    : fmt::format("{}: {}", kDependenciesAnnotation, found.error().message),
              found ? fmt::format("fix the reference, add the object to the seed, or list it in "
                                  "{} if something else creates it",
                                  kExternalDependenciesAnnotation)
                    : "name the group: Kind.group/namespace/name");
        continue;
      }
      if (std::find(found->begin(), found->end(), unit.object) != found->end()) {
        ctx.report_self_reference(unit, kDependenciesAnnotation, text);
        continue;
      }
      ctx.need_placed(unit, found.value(), "dependencies", out);
    }
  }

  if (const auto* ext = string_in(annotations, kExternalDependenciesAnnotation)) {
    for (std::string_view text : split_list(*ext)) {
      auto entry = parse_entry(text);
      std::optional<std::string> api_version;
      if (entry) api_version = external_api_version(ctx, entry.value());
      if (!entry || !api_version) {
        if (report)
          ctx.diags.add(
              o.where(), o.display(),
              fmt::format("{}: {}", kExternalDependenciesAnnotation,
                          entry ? fmt::format("cannot tell the apiVersion of \"{}\"", text)
                                : entry.error().message),
              "write apiVersion|kind|namespace|name for kinds that are not built in");
        continue;
      }
      const KindInfo* kind = ctx.kinds.find(split_api_version(*api_version).first, entry->kind);
      std::string ns =
          entry->ns_given || (kind && kind->scope == Scope::kCluster) ? entry->ns : o.ref.ns;
      out.push_back(
          ctx.need(ObjectRef{*api_version, entry->kind, ns, entry->name}, unit.cluster_index,
                   ReadinessPredicate::of(ReadinessPredicate::Type::kExists), "dependencies"));
    }
  }
}

}  // namespace planter
