#include "seed/validate.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <thread>
#include <unordered_map>

#include "model/names.h"
#include "seed/builtin_kind_rules.h"
#include "seed/metadata_rules.h"
#include "seed/planter_annotations.h"
#include "seed/template_variables.h"
#include "seed/workload_rules.h"

namespace planter {

namespace json = boost::json;

namespace {

bool is_crd(const ObjectRef& r) {
  return r.kind == "CustomResourceDefinition" && r.group() == "apiextensions.k8s.io";
}

// Reads a CRD into a KindInfo, reporting what is missing.
bool crd_kind(const Object& crd, KindInfo& info, Diagnostics& diags) {
  const json::string* group = find_string(crd.body, {"spec", "group"});
  const json::string* kind = find_string(crd.body, {"spec", "names", "kind"});
  const json::string* plural = find_string(crd.body, {"spec", "names", "plural"});
  const json::string* scope = find_string(crd.body, {"spec", "scope"});
  if (!group || !kind || !plural) {
    diags.add(crd.where(), crd.display(),
              "a CustomResourceDefinition needs spec.group, spec.names.kind and spec.names.plural",
              "complete the CRD's spec");
    return false;
  }
  info.group = std::string(*group);
  info.kind = std::string(*kind);
  info.resource = std::string(*plural);
  info.scope = (scope && *scope == "Cluster") ? Scope::kCluster : Scope::kNamespaced;
  const json::value* versions = find_path(crd.body, {"spec", "versions"});
  if (versions && versions->is_array()) {
    for (const auto& v : versions->get_array()) {
      const json::object* vo = v.if_object();
      if (!vo) continue;
      const json::value* name = vo->if_contains("name");
      const json::value* served = vo->if_contains("served");
      bool is_served = !served || !served->is_bool() || served->get_bool();
      if (name && name->is_string() && is_served) info.versions.emplace_back(name->get_string());
    }
  } else if (const json::string* version = find_string(crd.body, {"spec", "version"})) {
    info.versions.emplace_back(*version);  // apiextensions.k8s.io/v1beta1 form
  }
  std::string expected_name = info.resource + "." + info.group;
  if (crd.ref.name != expected_name && !has_template_variable(crd.ref.name)) {
    diags.add(crd.where(), crd.display(),
              fmt::format("a CRD must be named <plural>.<group>, here \"{}\"", expected_name),
              fmt::format("set metadata.name: {}", expected_name));
  }
  return true;
}

// The reference mirrors metadata.name and metadata.namespace.
void check_template_variables(const Object& o, Diagnostics& diags) {
  for (auto [field, value] : {std::pair<std::string_view, std::string_view>{"name", o.ref.name},
                              {"namespace", o.ref.ns}}) {
    if (has_template_variable(value))
      report_template_variable(o, fmt::format("metadata.{}", field), value, diags);
  }
}

// The checks of one object, which read it and the kinds and write nothing but `diags`.
void check_object(const Object& o, const KindInfo* info, const KindTable& kinds,
                  const std::unordered_map<std::string, const Object*>& crd_of_kind,
                  Diagnostics& diags) {
  check_template_variables(o, diags);
  check_metadata(o, diags);
  check_planter_annotations(o, diags);
  check_builtin_kind(o, info, kinds, diags);
  check_workload_numbers(o, diags);
  if (info && !info->builtin && !info->versions.empty()) {
    std::string_view version = o.ref.version();
    bool served = false;
    for (const auto& v : info->versions) served = served || v == version;
    if (!served) {
      std::string list;
      for (const auto& v : info->versions) list += (list.empty() ? "" : ", ") + v;
      auto crd = crd_of_kind.find(info->group + "|" + info->kind);
      diags.add(o.where(), o.display(),
                fmt::format("its CRD {} does not serve version {} (it serves: {})",
                            crd != crd_of_kind.end() ? crd->second->ref.name : info->resource,
                            version, list),
                fmt::format("use apiVersion {}/{}", info->group, info->versions.front()));
    }
  }
}

// From this many objects the checks run in two halves (a thread costs more than a small seed's
// checks).
constexpr size_t kTwoHalvesFrom = 20'000;

}  // namespace

void validate_seed(Seed& seed, KindTable& kinds, const ValidateOptions& options,
                   Diagnostics& diags) {
  // First the CRDs, so that every later check knows the seed's own kinds.
  std::unordered_map<std::string, const Object*> crd_of_kind;
  for (const Object& o : seed.objects) {
    if (!is_crd(o.ref)) continue;
    KindInfo info;
    if (!crd_kind(o, info, diags)) continue;
    if (kinds.is_builtin_group(info.group)) {
      diags.add(o.where(), o.display(),
                fmt::format("group \"{}\" is served by Kubernetes itself; a CRD cannot define "
                            "kinds in it",
                            info.group),
                "use a group of your own, e.g. example.com");
      continue;
    }
    crd_of_kind[info.group + "|" + info.kind] = &o;
    kinds.add(std::move(info));
  }

  // The namespaces first, on one thread: clearing or setting one writes into the object's body,
  // whose storage (a YAML stream's arena) is shared with its neighbours.
  std::vector<std::string> ignored_namespace(seed.objects.size());
  for (size_t i = 0; i < seed.objects.size(); ++i) {
    Object& o = seed.objects[i];
    const KindInfo* info = kinds.find(o.ref.group(), o.ref.kind);
    if (info && info->scope == Scope::kCluster && !o.ref.ns.empty()) {
      // kube-apiserver clears the namespace of a cluster-scoped object and kubectl accepts such
      // manifests (cf-for-k8s has two), so planter does the same and says so.
      o.body["metadata"].as_object().erase("namespace");
      ignored_namespace[i] = std::move(o.ref.ns);
      o.ref.ns.clear();
    }
    if (info && info->scope == Scope::kNamespaced && o.ref.ns.empty())
      o.set_namespace(options.default_namespace);
  }
  // Then the checks, which only read: a large seed's in two halves on two threads, the second
  // half's diagnostics after the first's (what one thread would say, in its order).
  auto check = [&](size_t from, size_t to, Diagnostics& out) {
    for (size_t i = from; i < to; ++i) {
      const Object& o = seed.objects[i];
      if (!ignored_namespace[i].empty())
        out.warn(o.where(), o.display(),
                 fmt::format("{} is cluster-scoped: metadata.namespace \"{}\" is ignored, as the "
                             "API server would; remove it",
                             o.ref.kind, ignored_namespace[i]));
      check_object(o, kinds.find(o.ref.group(), o.ref.kind), kinds, crd_of_kind, out);
    }
  };
  size_t n = seed.objects.size();
  size_t half = n >= kTwoHalvesFrom ? n / 2 : n;
  Diagnostics second;
  std::thread checking;
  if (half < n) checking = std::thread([&] { check(half, n, second); });
  check(0, half, diags);
  if (checking.joinable()) checking.join();
  diags.append(std::move(second));
}

}  // namespace planter
