#include "sim/kube_scheduler/pod_resources.h"

#include <algorithm>
#include <vector>

#include "sim/json_access.h"
#include "sim/kube_scheduler/quantity.h"

namespace planter::sim::sched {

namespace json = boost::json;

namespace {

constexpr int64_t kDefaultCpuMilli = 100;                // for scoring only
constexpr int64_t kDefaultMemory = 200LL * 1024 * 1024;  // for scoring only

int64_t saturating_add(int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) return b > 0 ? INT64_MAX : INT64_MIN;
  return out;
}

const json::object* resource_list(const json::object& container, std::string_view which) {
  return object_at(object_at(container, "resources"), which);
}

bool is_sidecar(const json::object& init_container) {
  return string_at(init_container, "restartPolicy") == "Always";
}

}  // namespace

void Resources::add(const Resources& o) {
  cpu_milli = saturating_add(cpu_milli, o.cpu_milli);
  memory = saturating_add(memory, o.memory);
  ephemeral_storage = saturating_add(ephemeral_storage, o.ephemeral_storage);
  for (const auto& [k, v] : o.scalar) scalar[k] = saturating_add(scalar[k], v);
}

void Resources::subtract(const Resources& o) {
  cpu_milli -= o.cpu_milli;
  memory -= o.memory;
  ephemeral_storage -= o.ephemeral_storage;
  for (const auto& [k, v] : o.scalar) {
    auto it = scalar.find(k);
    if (it == scalar.end()) continue;
    it->second -= v;
    if (it->second == 0) scalar.erase(it);
  }
}

void Resources::raise_to(const Resources& o) {
  cpu_milli = std::max(cpu_milli, o.cpu_milli);
  memory = std::max(memory, o.memory);
  ephemeral_storage = std::max(ephemeral_storage, o.ephemeral_storage);
  for (const auto& [k, v] : o.scalar) scalar[k] = std::max(scalar[k], v);
}

Resources Resources::from_list(const json::object* list) {
  Resources r;
  if (!list) return r;
  for (const auto& [name, value] : *list) {
    std::optional<int64_t> milli = parse_milli(&value);
    if (!milli || *milli <= 0) continue;
    if (name == "cpu")
      r.cpu_milli = *milli;
    else if (name == "memory")
      r.memory = whole_units(*milli);
    else if (name == "ephemeral-storage")
      r.ephemeral_storage = whole_units(*milli);
    else if (name != "pods")
      r.scalar[std::string(name)] = whole_units(*milli);
  }
  return r;
}

Resources pod_requests(const json::object& spec) {
  Resources sum;
  for (const auto* c : containers_in(&spec, "containers"))
    sum.add(Resources::from_list(resource_list(*c, "requests")));
  // Init containers run one at a time before the others; sidecars (restartPolicy Always) keep
  // running, so they count in the sum and under every init container that starts after them.
  Resources init_peak, sidecars;
  for (const auto* c : containers_in(&spec, "initContainers")) {
    Resources r = Resources::from_list(resource_list(*c, "requests"));
    if (is_sidecar(*c)) {
      sum.add(r);
      sidecars.add(r);
      init_peak.raise_to(sidecars);
    } else {
      r.add(sidecars);
      init_peak.raise_to(r);
    }
  }
  sum.raise_to(init_peak);
  sum.add(Resources::from_list(object_at(spec, "overhead")));
  return sum;
}

NonZeroRequests pod_nonzero_requests(const json::object& spec) {
  auto one = [](const json::object& c) {
    Resources r = Resources::from_list(resource_list(c, "requests"));
    return NonZeroRequests{r.cpu_milli ? r.cpu_milli : kDefaultCpuMilli,
                           r.memory ? r.memory : kDefaultMemory};
  };
  NonZeroRequests sum, init_peak, sidecars;
  for (const auto* c : containers_in(&spec, "containers")) {
    auto r = one(*c);
    sum.cpu_milli += r.cpu_milli;
    sum.memory += r.memory;
  }
  for (const auto* c : containers_in(&spec, "initContainers")) {
    auto r = one(*c);
    if (is_sidecar(*c)) {
      sum.cpu_milli += r.cpu_milli;
      sum.memory += r.memory;
      sidecars.cpu_milli += r.cpu_milli;
      sidecars.memory += r.memory;
      r = sidecars;
    } else {
      r.cpu_milli += sidecars.cpu_milli;
      r.memory += sidecars.memory;
    }
    init_peak.cpu_milli = std::max(init_peak.cpu_milli, r.cpu_milli);
    init_peak.memory = std::max(init_peak.memory, r.memory);
  }
  sum.cpu_milli = std::max(sum.cpu_milli, init_peak.cpu_milli);
  sum.memory = std::max(sum.memory, init_peak.memory);
  Resources overhead = Resources::from_list(object_at(spec, "overhead"));
  sum.cpu_milli += overhead.cpu_milli;
  sum.memory += overhead.memory;
  return sum;
}

std::vector<HostPortClaim> host_ports(const json::object& spec) {
  std::vector<HostPortClaim> out;
  for (const auto* c : containers_in(&spec, "containers")) {
    auto* ports = c->if_contains("ports");
    if (!ports || !ports->is_array()) continue;
    for (const auto& p : ports->as_array()) {
      if (!p.is_object()) continue;
      int64_t host = int_at(&p.as_object(), "hostPort");
      if (host <= 0) continue;
      std::string protocol = string_at(p.as_object(), "protocol");
      std::string ip = string_at(p.as_object(), "hostIP");
      out.push_back({ip.empty() ? "0.0.0.0" : ip, protocol.empty() ? "TCP" : protocol, host});
    }
  }
  return out;
}

std::string qos_class(const json::object& spec) {
  // As the API's QoS helper: only cpu and memory count; a zero amount counts as not set.
  bool any = false, guaranteed = true;
  auto all = containers_in(&spec, "containers");
  for (const auto* c : containers_in(&spec, "initContainers")) all.push_back(c);
  for (const auto* c : all) {
    const json::object* requests = resource_list(*c, "requests");
    const json::object* limits = resource_list(*c, "limits");
    for (const char* name : {"cpu", "memory"}) {
      auto amount = [&](const json::object* list) -> int64_t {
        return parse_milli(list ? list->if_contains(name) : nullptr).value_or(0);
      };
      int64_t req = amount(requests), lim = amount(limits);
      if (req > 0 || lim > 0) any = true;
      if (lim <= 0 || (req > 0 && req != lim)) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

}  // namespace planter::sim::sched
