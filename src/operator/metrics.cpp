#include "operator/metrics.h"

#include <fmt/format.h>

#include <cctype>

#include "kube/informer.h"

namespace planter::op {

namespace {

// A label value with ", \ and newlines escaped, as the text format wants.
std::string label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// Kubernetes' verbs for the HTTP methods (client-go's rest_client_requests_total uses methods;
// the verb is what a user reads in audit logs and RBAC).
std::string_view verb_of(std::string_view method) {
  if (method == "GET") return "get";
  if (method == "WATCH") return "watch";
  if (method == "POST") return "create";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return method;
}

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double v) {
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += v;
  ++count_;
}

void Histogram::render(std::string& out, std::string_view name) const {
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i];
    out += fmt::format("{}_bucket{{le=\"{}\"}} {}\n", name, bounds_[i], cumulative);
  }
  out += fmt::format("{}_bucket{{le=\"+Inf\"}} {}\n", name, count_);
  out += fmt::format("{}_sum {}\n{}_count {}\n", name, sum_, name, count_);
}

Metrics::Metrics()
    : declare_({0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}),
      wait_({0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800}) {}

void Metrics::set_gauges(std::function<Gauges()> gauges) {
  std::lock_guard lock(mu_);
  gauges_ = std::move(gauges);
}

void Metrics::observe_request(std::string_view cluster, std::string_view method, int code) {
  std::lock_guard lock(mu_);
  ++requests_[{std::string(cluster), std::string(verb_of(method)), code}];
}

void Metrics::observe_declare(double seconds) {
  std::lock_guard lock(mu_);
  declare_.observe(seconds);
}

void Metrics::observe_requirement_wait(double seconds) {
  std::lock_guard lock(mu_);
  wait_.observe(seconds);
}

std::string Metrics::render() const {
  std::function<Gauges()> gauges_fn;
  {
    std::lock_guard lock(mu_);
    gauges_fn = gauges_;
  }
  Gauges g = gauges_fn ? gauges_fn() : Gauges{};
  std::string out;
  header(out, "planter_seeds", "gauge", "Seeds by phase.");
  for (const char* phase : {"Pending", "Planting", "Planted", "Failed", "Uprooting"})
    out += fmt::format("planter_seeds{{phase=\"{}\"}} {}\n", phase,
                       g.seeds_by_phase.contains(phase) ? g.seeds_by_phase.at(phase) : 0);
  header(out, "planter_units", "gauge", "Units of the seeds being planted, by state.");
  for (const char* state : {"pending", "declaring", "declared", "failed", "blocked"})
    out += fmt::format("planter_units{{state=\"{}\"}} {}\n", state,
                       g.units_by_state.contains(state) ? g.units_by_state.at(state) : 0);
  header(out, "planter_leader", "gauge", "1 when this replica is the leader (or runs alone).");
  out += fmt::format("planter_leader {}\n", g.leader ? 1 : 0);
  std::lock_guard lock(mu_);
  header(out, "planter_declare_duration_seconds", "histogram",
         "From a unit's requirements holding to its server-side apply succeeding.");
  declare_.render(out, "planter_declare_duration_seconds");
  header(out, "planter_requirement_wait_duration_seconds", "histogram",
         "From planting starting to a unit's requirements holding.");
  wait_.render(out, "planter_requirement_wait_duration_seconds");
  header(out, "planter_api_requests_total", "counter",
         "Requests to Kubernetes API servers by cluster, verb and HTTP code (0: no response).");
  for (const auto& [key, n] : requests_) {
    const auto& [cluster, verb, code] = key;
    out += fmt::format("planter_api_requests_total{{cluster=\"{}\",verb=\"{}\",code=\"{}\"}} {}\n",
                       label(cluster), label(verb), code, n);
  }
  header(out, "planter_watch_restarts_total", "counter",
         "Watch streams opened again after one ended (timeout, dropped connection, 410 Gone).");
  out += fmt::format("planter_watch_restarts_total {}\n", kube::watch_restarts());
  return out;
}

}  // namespace planter::op
