#include "sim/kube_scheduler/device_allocator.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "sim/json_access.h"

namespace planter::sim::sched {

namespace json = boost::json;

namespace {

// The allocator gives up on a node after this many choices tried (a search with constraints can
// be exponential; kube-scheduler bounds it by time).
constexpr uint64_t kStepBudget = 200'000;

}  // namespace

const Result<cel::Program>& CelCache::get(const std::string& expression) {
  auto it = programs_.find(expression);
  if (it != programs_.end()) return it->second;
  cel::ParseOptions options{{"device"}};
  return programs_.emplace(expression, cel::Program::compile(expression, options)).first->second;
}

DeviceAllocator::DeviceAllocator(std::vector<StoredObject> claims, DeviceCatalog& catalog,
                                 CelCache& cel)
    : claims_(std::move(claims)), catalog_(catalog), cel_(cel) {
  catalog_.refresh();
  auto class_of = [&](const std::string& request, const json::object* spec) -> const json::object* {
    std::string name = string_at(spec, "deviceClassName");
    if (const json::object* c = catalog_.device_class(name)) return c;
    if (!missing_class_)
      missing_class_ = fmt::format("request {}: device class {} does not exist", request, name);
    return nullptr;
  };
  for (size_t c = 0; c < claims_.size(); ++c) {
    const json::object* devices = object_at(object_at(*claims_[c], "spec"), "devices");
    if (const json::array* reqs = array_at(devices, "requests"))
      for (const json::value& r : *reqs) {
        if (!r.is_object()) continue;
        Request req{c, string_at(r.get_object(), "name"), {}};
        if (const json::object* exactly = object_at(r.get_object(), "exactly")) {
          req.alternatives.push_back({req.name, exactly, class_of(req.name, exactly), {}});
        } else if (const json::array* first = array_at(&r.get_object(), "firstAvailable")) {
          for (const json::value& sub : *first)
            if (sub.is_object()) {
              std::string name = req.name + "/" + string_at(sub.get_object(), "name");
              req.alternatives.push_back(
                  {name, &sub.get_object(), class_of(name, &sub.get_object()), {}});
            }
        }
        for (Alternative& a : req.alternatives) {
          a.matches.assign(catalog_.devices().size(), -1);
          if (a.device_class)
            a.class_memo = &catalog_.class_memo(meta_string(*a.device_class, "name"));
        }
        requests_.push_back(std::move(req));
      }
    if (const json::array* cons = array_at(devices, "constraints"))
      for (const json::value& k : *cons) {
        if (!k.is_object()) continue;
        Constraint con{c, {}, string_at(k.get_object(), "matchAttribute")};
        if (con.attribute.empty()) continue;
        if (const json::array* names = array_at(&k.get_object(), "requests"))
          for (const json::value& n : *names)
            if (n.is_string()) con.requests.insert(std::string(n.get_string()));
        constraints_.push_back(std::move(con));
      }
  }
  constraint_state_.assign(constraints_.size(), {std::string(), 0});
}

DeviceCatalog::Memo DeviceAllocator::selectors_match(const json::object* owner, const char* what,
                                                     size_t device) {
  const json::array* selectors = array_at(owner, "selectors");
  if (!selectors) return DeviceCatalog::kYes;
  int index = 0;
  for (const json::value& s : *selectors) {
    std::string expression =
        string_at(object_at(s.is_object() ? &s.get_object() : nullptr, "cel"), "expression");
    const auto& program = cel_.get(expression);
    if (!program) {
      if (!selector_error_)
        selector_error_ = fmt::format("{} selector #{}: {}", what, index, program.error().message);
      return DeviceCatalog::kFailed;
    }
    cel::EvalResult r = program->evaluate(catalog_.binding(device));
    if (r.value.is_error()) {
      if (!selector_error_)
        selector_error_ =
            fmt::format("{} selector #{}: CEL runtime error: {}", what, index, r.value.text());
      return DeviceCatalog::kFailed;
    }
    if (!r.value.is_bool() || !r.value.as_bool()) return DeviceCatalog::kNo;
    ++index;
  }
  return DeviceCatalog::kYes;
}

bool DeviceAllocator::matches(Alternative& a, size_t device) {
  int8_t& known = a.matches[device];
  if (known < 0) {
    known = a.device_class && class_matches(a, device) &&
            selectors_match(a.spec, "request", device) == DeviceCatalog::kYes;
  }
  return known == 1;
}

// The class's selectors, evaluated once per device while the class and the slices stay as they
// are; a failed evaluation is evaluated again for its message when a pod has none yet.
bool DeviceAllocator::class_matches(const Alternative& a, size_t device) {
  int8_t& memo = (*a.class_memo)[device];
  const json::object* class_spec = object_at(a.device_class, "spec");
  if (memo == DeviceCatalog::kUnknown) {
    memo = selectors_match(class_spec, "class", device);
  } else if (memo == DeviceCatalog::kFailed && !selector_error_) {
    selectors_match(class_spec, "class", device);
  }
  return memo == DeviceCatalog::kYes;
}

// A NoSchedule or NoExecute taint needs a toleration of the request (key, operator Exists or
// Equal with the value, effect empty or the same), as pods tolerate node taints.
bool DeviceAllocator::tolerated(const Alternative& a, const DeviceCatalog::Device& d) const {
  for (const json::object* taint : d.taints) {
    std::string effect = string_at(taint, "effect");
    if (effect != "NoSchedule" && effect != "NoExecute") continue;
    bool ok = false;
    if (const json::array* tols = array_at(a.spec, "tolerations"))
      for (const json::value& t : *tols) {
        if (!t.is_object()) continue;
        const json::object& tol = t.get_object();
        std::string key = string_at(tol, "key"), op = string_at(tol, "operator");
        std::string tol_effect = string_at(tol, "effect");
        if (!key.empty() && key != string_at(taint, "key")) continue;
        if (op != "Exists" && string_at(tol, "value") != string_at(taint, "value")) continue;
        if (!tol_effect.empty() && tol_effect != effect) continue;
        ok = true;
        break;
      }
    if (!ok) return false;
  }
  return true;
}

bool DeviceAllocator::constraints_hold(size_t request, size_t device) const {
  const Request& r = requests_[request];
  for (size_t k = 0; k < constraints_.size(); ++k) {
    const Constraint& c = constraints_[k];
    if (c.claim != r.claim || (!c.requests.empty() && !c.requests.contains(r.name))) continue;
    auto value = catalog_.attribute(device, c.attribute);
    if (!value) return false;
    if (constraint_state_[k].second > 0 && constraint_state_[k].first != *value) return false;
  }
  return true;
}

void DeviceAllocator::take(size_t request, size_t device, int delta) {
  const Request& r = requests_[request];
  used_[device] = delta > 0;
  for (size_t k = 0; k < constraints_.size(); ++k) {
    const Constraint& c = constraints_[k];
    if (c.claim != r.claim || (!c.requests.empty() && !c.requests.contains(r.name))) continue;
    auto& [value, count] = constraint_state_[k];
    if (delta > 0 && count == 0) value = *catalog_.attribute(device, c.attribute);
    count += delta;
  }
}

// Chooses `need` more devices for `request` (alternative `alt`) from on_node_[start..], then
// goes on with the next request; every matching device for allocationMode All.
bool DeviceAllocator::fill(size_t request, size_t alt, size_t start, size_t need, bool all,
                           std::vector<std::vector<size_t>>& chosen,
                           std::vector<size_t>& alternative) {
  if (need == 0 && !all) return search(request + 1, chosen, alternative);
  Alternative& a = requests_[request].alternatives[alt];
  for (size_t i = start; i < on_node_.size(); ++i) {
    if (++steps_ > kStepBudget) return false;
    size_t d = on_node_[i];
    if (!matches(a, d)) continue;
    // All: every matching device of the node, none taken, each tolerated and within the
    // constraints; anything else fails the request.
    bool usable = !used_[d] && !catalog_.allocated(d) && tolerated(a, catalog_.devices()[d]) &&
                  constraints_hold(request, d);
    if (!usable) {
      if (all) return false;
      continue;
    }
    take(request, d, +1);
    chosen[request].push_back(d);
    if (fill(request, alt, i + 1, all ? 0 : need - 1, all, chosen, alternative)) return true;
    chosen[request].pop_back();
    take(request, d, -1);
    if (all) return false;
  }
  if (all && !chosen[request].empty()) return search(request + 1, chosen, alternative);
  return false;
}

bool DeviceAllocator::search(size_t request, std::vector<std::vector<size_t>>& chosen,
                             std::vector<size_t>& alternative) {
  if (request == requests_.size()) return true;
  Request& r = requests_[request];
  for (size_t alt = 0; alt < r.alternatives.size(); ++alt) {
    const Alternative& a = r.alternatives[alt];
    if (!a.device_class) continue;
    std::string mode = string_at(a.spec, "allocationMode");
    bool all = mode == "All";
    int64_t count = all ? 0 : int_at(a.spec, "count", 1);
    if (count < 1 && !all) count = 1;
    alternative[request] = alt;
    if (fill(request, alt, 0, static_cast<size_t>(count), all, chosen, alternative)) return true;
    if (steps_ > kStepBudget) return false;
  }
  return false;
}

std::optional<std::vector<ClaimAllocation>> DeviceAllocator::allocate(const json::object& node) {
  on_node_ = catalog_.for_node(node);
  used_.assign(catalog_.devices().size(), false);
  for (auto& s : constraint_state_) s = {std::string(), 0};
  steps_ = 0;
  std::vector<std::vector<size_t>> chosen(requests_.size());
  std::vector<size_t> alternative(requests_.size(), 0);
  if (!search(0, chosen, alternative)) return std::nullopt;
  std::vector<ClaimAllocation> out(claims_.size());
  for (size_t r = 0; r < requests_.size(); ++r) {
    ClaimAllocation& a = out[requests_[r].claim];
    for (size_t d : chosen[r]) {
      const DeviceCatalog::Device& device = catalog_.devices()[d];
      a.results.push_back({requests_[r].alternatives[alternative[r]].name, device.id});
      a.node_local = a.node_local || device.node_local;
    }
  }
  return out;
}

}  // namespace planter::sim::sched
