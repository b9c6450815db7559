#include "sim/kube_scheduler/device_catalog.h"

#include <algorithm>
#include <boost/json.hpp>

#include "cel/functions.h"
#include "sim/json_access.h"
#include "sim/kube_scheduler/node_match.h"
#include "sim/kube_scheduler/quantity.h"

namespace planter::sim::sched {

namespace json = boost::json;

namespace {

// An attribute's value as CEL sees it: `{int: 1}`, `{bool: true}`, `{string: "a"}`,
// `{version: "1.2.3"}` (a semver value).
cel::Value attribute_value(const json::object& attr) {
  if (const json::value* v = attr.if_contains("int"); v && v->is_int64())
    return cel::Value::integer(v->get_int64());
  if (const json::value* v = attr.if_contains("bool"); v && v->is_bool())
    return cel::Value::boolean(v->get_bool());
  if (const json::value* v = attr.if_contains("string"); v && v->is_string())
    return cel::Value::string(std::string(v->get_string()));
  if (const json::value* v = attr.if_contains("version"); v && v->is_string())
    return cel::parse_semver(v->get_string());
  return cel::Value::error("attribute without a value");
}

// "domain/name" of an attribute key; unqualified keys are in the driver's domain.
std::pair<std::string, std::string> split_qualified(std::string_view key, std::string_view driver) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) return {std::string(driver), std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

// `device` as DRA's CEL environment binds it: driver, attributes and capacity by domain.
cel::Bindings device_binding(const std::string& driver, const json::object& device) {
  std::map<std::string, cel::Map> attributes, capacity;
  if (const json::object* attrs = object_at(device, "attributes"))
    for (const auto& [key, v] : *attrs)
      if (v.is_object()) {
        auto [domain, name] = split_qualified(key, driver);
        attributes[domain].emplace_back(cel::Value::string(name), attribute_value(v.get_object()));
      }
  if (const json::object* caps = object_at(device, "capacity"))
    for (const auto& [key, v] : *caps)
      if (v.is_object()) {
        auto [domain, name] = split_qualified(key, driver);
        std::string text = string_at(v.get_object(), "value");
        auto milli = parse_milli(v.get_object().if_contains("value"));
        capacity[domain].emplace_back(
            cel::Value::string(name),
            cel::Value::quantity({static_cast<double>(milli.value_or(0)) / 1000.0, text}));
      }
  cel::Map attrs_by_domain, caps_by_domain;
  for (auto& [domain, m] : attributes)
    attrs_by_domain.emplace_back(cel::Value::string(domain), cel::Value::map(std::move(m)));
  for (auto& [domain, m] : capacity)
    caps_by_domain.emplace_back(cel::Value::string(domain), cel::Value::map(std::move(m)));
  cel::Map d = {{cel::Value::string("driver"), cel::Value::string(driver)},
                {cel::Value::string("attributes"), cel::Value::map(std::move(attrs_by_domain))},
                {cel::Value::string("capacity"), cel::Value::map(std::move(caps_by_domain))}};
  return {{"device", cel::Value::map(std::move(d))}};
}

// Whether a slice that names no node has its devices on `node`.
bool shared_slice_on(const json::object& spec, const json::object& node) {
  if (const json::value* all = spec.if_contains("allNodes");
      all && all->is_bool() && all->get_bool())
    return true;
  if (const json::object* selector = object_at(spec, "nodeSelector"))
    if (const json::array* terms = array_at(selector, "nodeSelectorTerms"))
      for (const json::value& t : *terms)
        if (t.is_object() && node_selector_term_matches(t.get_object(), node)) return true;
  return false;
}

// The text that two equal attribute values share, for matchAttribute.
std::string attribute_text(const json::object& attr) {
  for (const char* k : {"int", "bool", "string", "version"})
    if (const json::value* v = attr.if_contains(k))
      return std::string(k) + ":" + json::serialize(*v);
  return {};
}

// A DeviceTaintRule's selector (driver, pool, device) picks the device.
bool rule_selects(const json::object& rule_spec, const DeviceId& id) {
  const json::object* sel = object_at(rule_spec, "deviceSelector");
  if (!sel) return true;
  for (auto [key, value] : {std::pair{"driver", &id.driver}, std::pair{"pool", &id.pool},
                            std::pair{"device", &id.device}}) {
    std::string want = string_at(sel, key);
    if (!want.empty() && want != *value) return false;
  }
  return true;
}

std::vector<DeviceId> allocation_of_claim(const StoredObject& claim) {
  std::vector<DeviceId> out;
  if (!claim) return out;
  const json::object* alloc = object_at(object_at(*claim, "status"), "allocation");
  if (const json::array* results = array_at(object_at(alloc, "devices"), "results"))
    for (const json::value& r : *results)
      if (r.is_object())
        out.push_back({string_at(r.get_object(), "driver"), string_at(r.get_object(), "pool"),
                       string_at(r.get_object(), "device")});
  return out;
}

}  // namespace

DeviceCatalog::DeviceCatalog(const Store& store) : store_(store) {
  for (const auto& [_, c] : store.bucket("resource.k8s.io/resourceclaims"))
    claim_changed(Change{0, EventType::kAdded, "resource.k8s.io/resourceclaims",
                         meta_string(*c, "namespace"), c, nullptr});
}

void DeviceCatalog::claim_changed(const Change& change) {
  std::string key = change.ns + "/" + meta_string(*change.object, "name");
  auto it = allocated_by_claim_.find(key);
  if (it != allocated_by_claim_.end()) {
    for (const DeviceId& id : it->second)
      if (auto count = allocated_counts_.find(id);
          count != allocated_counts_.end() && --count->second <= 0)
        allocated_counts_.erase(count);
    allocated_by_claim_.erase(it);
  }
  if (change.type == EventType::kDeleted) return;
  std::vector<DeviceId> taken = allocation_of_claim(change.object);
  if (taken.empty()) return;
  for (const DeviceId& id : taken) ++allocated_counts_[id];
  allocated_by_claim_.emplace(std::move(key), std::move(taken));
}

void DeviceCatalog::refresh() {
  if (!stale_) return;
  stale_ = false;
  read_slices();
}

void DeviceCatalog::read_slices() {
  held_.clear();
  class_memo_.clear();
  devices_.clear();
  by_node_.clear();
  shared_.clear();
  // Pools: the newest generation of each, complete when all its slices are published.
  struct Pool {
    int64_t generation = -1;
    int64_t expected = 0;
    int64_t seen = 0;
  };
  std::map<std::pair<std::string, std::string>, Pool> pools;
  const auto& slices = store_.bucket("resource.k8s.io/resourceslices");
  for (const auto& [_, s] : slices) {
    const json::object* spec = object_at(*s, "spec");
    const json::object* pool = object_at(spec, "pool");
    Pool& p = pools[{string_at(spec, "driver"), string_at(pool, "name")}];
    int64_t gen = int_at(pool, "generation");
    if (gen > p.generation) p = Pool{gen, int_at(pool, "resourceSliceCount", 1), 0};
    if (gen == p.generation) ++p.seen;
  }
  for (const auto& [_, s] : slices) {
    const json::object* spec = object_at(*s, "spec");
    std::string driver = string_at(spec, "driver");
    const json::object* pool = object_at(spec, "pool");
    const Pool& p = pools[{driver, string_at(pool, "name")}];
    if (int_at(pool, "generation") != p.generation || p.seen < p.expected) continue;
    const json::array* devs = array_at(spec, "devices");
    if (!devs) continue;
    held_.push_back(s);
    std::string node = string_at(spec, "nodeName");
    for (const json::value& d : *devs) {
      if (!d.is_object()) continue;
      Device dev{{driver, string_at(pool, "name"), string_at(d.get_object(), "name")},
                 &d.get_object(),
                 spec,
                 !node.empty(),
                 {},
                 std::nullopt};
      if (const json::array* taints = array_at(&d.get_object(), "taints"))
        for (const json::value& t : *taints)
          if (t.is_object()) dev.taints.push_back(&t.get_object());
      (node.empty() ? shared_ : by_node_[node]).push_back(devices_.size());
      devices_.push_back(std::move(dev));
    }
  }
  for (const auto& [_, rule] : store_.bucket("resource.k8s.io/devicetaintrules")) {
    const json::object* spec = object_at(*rule, "spec");
    const json::object* taint = object_at(spec, "taint");
    if (!taint) continue;
    held_.push_back(rule);
    for (Device& d : devices_)
      if (rule_selects(*spec, d.id)) d.taints.push_back(taint);
  }
}

std::vector<size_t> DeviceCatalog::for_node(const json::object& node) const {
  std::vector<size_t> out;
  if (auto it = by_node_.find(meta_string(node, "name")); it != by_node_.end()) out = it->second;
  for (size_t d : shared_)
    if (shared_slice_on(*devices_[d].slice, node)) out.push_back(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> DeviceCatalog::attribute(size_t device,
                                                    std::string_view qualified) const {
  const Device& d = devices_[device];
  if (const json::object* attrs = object_at(*d.spec, "attributes"))
    for (const auto& [key, v] : *attrs) {
      auto [domain, name] = split_qualified(key, d.id.driver);
      if (domain + "/" + name == qualified && v.is_object()) return attribute_text(v.get_object());
    }
  return std::nullopt;
}

const cel::Bindings& DeviceCatalog::binding(size_t device) {
  Device& d = devices_[device];
  if (!d.binding) d.binding = device_binding(d.id.driver, *d.spec);
  return *d.binding;
}

std::vector<int8_t>& DeviceCatalog::class_memo(const std::string& device_class) {
  std::vector<int8_t>& memo = class_memo_[device_class];
  memo.resize(devices_.size(), kUnknown);
  return memo;
}

void DeviceCatalog::read_classes() {
  if (!classes_stale_) return;
  classes_stale_ = false;
  classes_.clear();
  serving_.clear();
  std::map<std::string, std::string, std::less<>> created;  // resource -> its class's timestamp
  for (const auto& [_, c] : store_.bucket("resource.k8s.io/deviceclasses")) {
    std::string name = meta_string(*c, "name");
    classes_.emplace(name, c);
    serving_["deviceclass.resource.kubernetes.io/" + name] = name;
  }
  for (const auto& [name, c] : classes_) {  // by name: the first wins among equals
    std::string resource = string_at(object_at(*c, "spec"), "extendedResourceName");
    if (resource.empty()) continue;
    std::string when = meta_string(*c, "creationTimestamp");
    auto it = created.find(resource);
    if (it != created.end() && when <= it->second) continue;
    created[resource] = when;
    serving_[resource] = name;
  }
}

const json::object* DeviceCatalog::device_class(std::string_view name) {
  read_classes();
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : it->second.get();
}

std::string DeviceCatalog::serving_class(std::string_view resource) {
  read_classes();
  auto it = serving_.find(resource);
  return it == serving_.end() ? std::string() : it->second;
}

bool DeviceCatalog::any_class() {
  read_classes();
  return !classes_.empty();
}

}  // namespace planter::sim::sched
