#include "plan/node_providers.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <boost/json.hpp>

namespace planter {

namespace json = boost::json;

namespace {

const json::array* array_at(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = find_path(o, path);
  return v && v->is_array() ? &v->as_array() : nullptr;
}

const json::object* object_at(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = find_path(o, path);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

// The seed object of `group`/`kind` named `name` in `ns`.
const Object* find(const std::vector<Object>& objects, std::string_view group,
                   std::string_view kind, std::string_view ns, std::string_view name) {
  for (const Object& o : objects)
    if (o.ref.kind == kind && o.ref.group() == group && o.ref.name == name && o.ref.ns == ns)
      return &o;
  return nullptr;
}

// A PerformanceProfile's page size ("1G", "2M") as the node's resource names it (hugepages-1Gi).
std::string page_resource(std::string size) {
  if (!size.empty() && (size.back() == 'G' || size.back() == 'M')) size += 'i';
  return "hugepages-" + size;
}

Provided performance_profile(const Object& o, const std::vector<Object>&) {
  Provided p;
  auto add = [&](std::string size) {
    if (size.empty()) return;
    std::string r = page_resource(std::move(size));
    if (!p.gives_resource(r)) p.resources.push_back(std::move(r));
  };
  if (const json::array* pages = array_at(o.body, {"spec", "hugepages", "pages"}))
    for (const json::value& page : *pages)
      if (page.is_object()) add(string_field(page.as_object(), {"size"}));
  add(string_field(o.body, {"spec", "hugepages", "defaultHugepagesSize"}));
  return p;
}

// The MachineConfigPool a PerformanceProfile renders for, as the Node Tuning Operator picks it
// (performanceprofile_types.go): the pool whose labels its machineConfigPoolSelector matches,
// which defaults to machineconfiguration.openshift.io/role: <role> for the role its nodeSelector
// names (node-role.kubernetes.io/<role>). A seed's pool with those labels, whatever its name;
// without one in the seed, the pool named after the role (the name OpenShift gives the pools of
// its roles), as a fallback.
std::optional<ObjectRef> profile_pool(const Object& o, const std::vector<Object>& objects) {
  std::string role;
  if (const json::object* nodes = object_at(o.body, {"spec", "nodeSelector"}))
    for (const auto& [k, _] : *nodes) {
      constexpr std::string_view kRole = "node-role.kubernetes.io/";
      if (std::string_view(k).starts_with(kRole) && k.size() > kRole.size()) {
        role = std::string(std::string_view(k).substr(kRole.size()));
        break;
      }
    }
  json::object selector;
  if (const json::object* given = object_at(o.body, {"spec", "machineConfigPoolSelector"});
      given && !given->empty())
    selector = *given;
  else if (!role.empty())
    selector["machineconfiguration.openshift.io/role"] = role;
  if (!selector.empty())
    for (const Object& pool : objects) {
      if (pool.ref.kind != "MachineConfigPool" ||
          pool.ref.group() != "machineconfiguration.openshift.io")
        continue;
      const json::object* labels = pool.labels();
      bool all = labels != nullptr;
      for (const auto& [k, v] : selector)
        all =
            all && v.is_string() && string_in(labels, k) && *string_in(labels, k) == v.as_string();
      if (all) return pool.ref;
    }
  if (!role.empty())
    return ObjectRef{"machineconfiguration.openshift.io/v1", "MachineConfigPool", "", role};
  return std::nullopt;
}

// A MachineConfig that reserves huge pages on the kernel command line (hugepagesz=1G
// hugepages=4): hugepages-<size> on the nodes of its pool.
Provided machine_config(const Object& o, const std::vector<Object>&) {
  Provided p;
  if (const json::array* args = array_at(o.body, {"spec", "kernelArguments"}))
    for (const json::value& a : *args) {
      if (!a.is_string()) continue;
      std::string_view arg = a.as_string();
      if (!arg.starts_with("hugepagesz=")) continue;
      std::string r = page_resource(std::string(arg.substr(11)));
      if (!p.gives_resource(r)) p.resources.push_back(r);
    }
  return p;
}

// The pool a MachineConfig is rendered into: the one named by its role label.
std::optional<ObjectRef> config_pool(const Object& o, const std::vector<Object>&) {
  const json::string* role = string_in(o.labels(), "machineconfiguration.openshift.io/role");
  if (!role || role->empty()) return std::nullopt;
  return ObjectRef{"machineconfiguration.openshift.io/v1", "MachineConfigPool", "",
                   std::string(*role)};
}

Provided sriov_policy(const Object& o, const std::vector<Object>&) {
  Provided p;
  if (std::string r = sriov_resource(o); !r.empty()) p.resources.push_back(std::move(r));
  return p;
}

Provided gpu(const Object&, const std::vector<Object>&) {
  return Provided{{"nvidia.com/gpu"}, {}};
}

Provided node_feature_rule(const Object& o, const std::vector<Object>&) {
  Provided p;
  auto full = [](std::string_view key) {
    return key.find('/') == std::string_view::npos
               ? "feature.node.kubernetes.io/" + std::string(key)
               : std::string(key);
  };
  if (const json::array* rules = array_at(o.body, {"spec", "rules"}))
    for (const json::value& r : *rules) {
      if (!r.is_object()) continue;
      if (const json::object* labels = object_at(r.as_object(), {"labels"}))
        for (const auto& [k, v] : *labels)
          p.labels.push_back(full(k) + (v.is_string() ? "=" + std::string(v.as_string()) : ""));
      if (const json::object* extended = object_at(r.as_object(), {"extendedResources"}))
        for (const auto& [k, _] : *extended) p.resources.push_back(full(k));
    }
  return p;
}

Provided kmm_module(const Object& o, const std::vector<Object>&) {
  return Provided{{}, {"kmm.node.kubernetes.io/" + o.ref.ns + "." + o.ref.name + ".ready"}};
}

// A planter Cluster's node pools, with what their KernelConfig and MemoryConfig give (the sim
// configures nodes so: workloads/node_configuration.cpp, from its own reading of them).
Provided cluster_pools(const Object& o, const std::vector<Object>& objects) {
  Provided p;
  const json::array* pools = array_at(o.body, {"spec", "nodes"});
  if (!pools) return p;
  for (const json::value& v : *pools) {
    if (!v.is_object()) continue;
    const json::object& pool = v.as_object();
    if (const json::object* labels = object_at(pool, {"labels"}))
      for (const auto& [k, val] : *labels)
        if (val.is_string())
          p.labels.push_back(std::string(k) + "=" + std::string(val.as_string()));
    if (const json::object* resources = object_at(pool, {"resources"}))
      for (const auto& [k, _] : *resources) p.resources.emplace_back(k);
    if (std::string name = string_field(pool, {"kernelConfig"}); !name.empty()) {
      p.labels.push_back("planter.nephio.org/kernel-config=" + name);
      const Object* k = find(objects, "planter.nephio.org", "KernelConfig", o.ref.ns, name);
      const json::value* rt = k ? find_path(k->body, {"spec", "realtime"}) : nullptr;
      if (rt && rt->is_bool() && rt->as_bool())
        p.labels.push_back("planter.nephio.org/realtime-kernel=true");
    }
    if (std::string name = string_field(pool, {"memoryConfig"}); !name.empty()) {
      p.labels.push_back("planter.nephio.org/memory-config=" + name);
      if (const Object* m = find(objects, "planter.nephio.org", "MemoryConfig", o.ref.ns, name)) {
        const json::value* numa = find_path(m->body, {"spec", "numa"});
        if (numa && numa->is_bool() && numa->as_bool())
          p.labels.push_back("planter.nephio.org/numa=true");
        if (std::string size = string_field(m->body, {"spec", "hugePages"}); !size.empty())
          p.resources.push_back("hugepages-" + size);
      }
    }
  }
  return p;
}

constexpr NodeProvider kProviders[] = {
    {"performance.openshift.io", "PerformanceProfile", performance_profile, "", profile_pool,
     "condition=Updated", true, "nodeSelector"},
    {"sriovnetwork.openshift.io", "SriovNetworkNodePolicy", sriov_policy, "", nullptr, "", true,
     "nodeSelector", "sriovnetwork.openshift.io/v1", "SriovNetworkNodeState",
     "jsonpath={.status.syncStatus}=Succeeded"},
    {"machineconfiguration.openshift.io", "MachineConfig", machine_config, "", config_pool,
     "condition=Updated"},
    {"nvidia.com", "ClusterPolicy", gpu, "jsonpath={.status.state}=ready"},
    {"nvidia.com", "NVIDIADriver", gpu, "jsonpath={.status.state}=ready"},
    // The GPU Operator's DRA mode: its driver publishes the GPUs as devices, and its DeviceClass
    // gpu.nvidia.com serves nvidia.com/gpu (extendedResourceName).
    {"nvidia.com", "GPUCluster", gpu, "jsonpath={.status.state}=ready"},
    {"nfd.k8s-sigs.io", "NodeFeatureRule", node_feature_rule, ""},
    {"kmm.sigs.x-k8s.io", "Module", kmm_module, "", nullptr, "", true, "selector"},
    {"planter.nephio.org", "Cluster", cluster_pools, "", nullptr, "", false},
};

}  // namespace

bool Provided::gives_resource(std::string_view name) const {
  return std::find(resources.begin(), resources.end(), name) != resources.end();
}

bool Provided::gives_label(std::string_view label) const {
  std::string_view key = label.substr(0, label.find('='));
  for (const std::string& l : labels) {
    std::string_view k = std::string_view(l).substr(0, l.find('='));
    if (k != key) continue;
    // A need for the key alone, or a provider that gives any value, or the same value.
    if (label.size() == key.size() || l.size() == k.size() || l == label) return true;
  }
  return false;
}

std::string provider_progress(const json::object& o) {
  std::string kind = string_field(o, {"kind"}), name = string_field(o, {"metadata", "name"});
  const json::value* status = o.if_contains("status");
  if (!status || !status->is_object()) return "";
  const json::object& st = status->as_object();
  if (kind == "MachineConfigPool") {
    std::string updated = "Unknown";
    if (const json::value* cs = st.if_contains("conditions"); cs && cs->is_array())
      for (const json::value& c : cs->as_array())
        if (c.is_object() && string_field(c.as_object(), {"type"}) == "Updated")
          updated = string_field(c.as_object(), {"status"});
    auto count = [&](const char* field) {
      const json::value* v = st.if_contains(field);
      return v && v->is_int64() ? v->as_int64() : 0;
    };
    return fmt::format("MachineConfigPool {} {}, {} of {} machines updated", name,
                       updated == "True" ? "Updated" : "Updating", count("updatedMachineCount"),
                       count("machineCount"));
  }
  if (kind == "ClusterPolicy" || kind == "NVIDIADriver" || kind == "GPUCluster") {
    std::string state = string_field(st, {"state"});
    if (state.empty()) return "";
    std::string out = fmt::format("{} {} {}", kind, name, state);
    // What its Ready condition says while it is not ("1 of 2 GPU nodes published their devices").
    if (const json::value* cs = st.if_contains("conditions"); cs && cs->is_array())
      for (const json::value& c : cs->as_array())
        if (c.is_object() && string_field(c.as_object(), {"type"}) == "Ready" &&
            string_field(c.as_object(), {"status"}) != "True")
          if (std::string m = string_field(c.as_object(), {"message"}); !m.empty())
            out += " (" + m + ")";
    return out;
  }
  return "";
}

std::string sriov_resource(const Object& o) {
  std::string name = string_field(o.body, {"spec", "resourceName"});
  if (name.empty()) return "";
  const json::string* prefix = o.annotation(kResourcePrefixAnnotation);
  return (prefix ? std::string(*prefix) : std::string("openshift.io")) + "/" + name;
}

void warn_unmatched_providers(const std::vector<Object>& objects,
                              const std::vector<Placement>& placements, const Inventory& inventory,
                              Diagnostics& diags) {
  for (size_t i = 0; i < objects.size(); ++i) {
    const Object& o = objects[i];
    const NodeProvider* p = node_provider(o.ref.group(), o.ref.kind);
    if (!p || p->node_selector.empty()) continue;
    const json::value* sel = find_path(o.body, {"spec", p->node_selector});
    if (!sel || !sel->is_object() || sel->as_object().empty()) continue;
    for (uint32_t c : placements[i].clusters) {
      const ClusterInfo& cluster = inventory.clusters()[c];
      if (!cluster.object) continue;
      const Object& defining = objects[*cluster.object];
      const json::array* pools = array_at(defining.body, {"spec", "nodes"});
      if (!pools || pools->empty()) continue;
      bool matched = false;
      for (const json::value& pool : *pools) {
        const json::object* labels =
            pool.is_object() ? object_at(pool.as_object(), {"labels"}) : nullptr;
        bool all = true;
        for (const auto& [k, v] : sel->as_object()) {
          const json::value* have = labels ? labels->if_contains(k) : nullptr;
          all = all && have && have->is_string() && v.is_string() &&
                have->as_string() == v.as_string();
        }
        matched = matched || all;
      }
      if (matched) continue;
      std::vector<std::string> wanted;
      for (const auto& [k, v] : sel->as_object())
        wanted.push_back(std::string(k) + "=" + (v.is_string() ? std::string(v.as_string()) : ""));
      diags.warn(o.where(), o.display(),
                 fmt::format("it selects nodes with {}, but no node pool of {} ({}) has those "
                             "labels: it configures no node of cluster {}",
                             fmt::join(wanted, ", "), defining.ref.short_form(), defining.where(),
                             cluster.name));
    }
  }
}

std::span<const NodeProvider> node_providers() {
  return kProviders;
}

const NodeProvider* node_provider(std::string_view group, std::string_view kind) {
  for (const NodeProvider& p : kProviders)
    if (p.group == group && p.kind == kind) return &p;
  return nullptr;
}

}  // namespace planter
