#include "plant/audit_order.h"

#include <fmt/format.h>

#include <map>
#include <optional>

namespace planter::testing {

namespace json = boost::json;

std::string key_of_id(const std::string& id) {
  // group/version|Kind|ns|name, or version|Kind|ns|name for the core group.
  auto bar = id.find('|');
  std::string av = id.substr(0, bar);
  auto slash = av.find('/');
  std::string group = slash == std::string::npos ? "" : av.substr(0, slash);
  return group + id.substr(bar);
}

std::vector<AuditEntry> parse_audit(const std::vector<std::string>& lines) {
  std::vector<AuditEntry> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    json::object o = json::parse(lines[i]).as_object();
    AuditEntry e;
    e.index = i;
    auto str = [&](const char* k) {
      auto* v = o.if_contains(k);
      return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    e.cluster = str("cluster");
    e.verb = str("verb");
    e.what = str("what");
    e.user = str("user");
    e.object = key_of_id(str("object"));
    if (auto* code = o.if_contains("code"); code && code->is_int64() && code->as_int64() >= 300)
      continue;
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

std::string audit_cluster(std::string_view plan_cluster) {
  return plan_cluster == "SELF" ? "management" : std::string(plan_cluster);
}

bool is_write(const AuditEntry& e) {
  return e.verb == "create" || e.verb == "patch" || e.verb == "update" || e.verb == "apply";
}

// `writers` is one user or several separated by commas.
bool is_writer(const std::string& writers, const std::string& user) {
  for (size_t start = 0;;) {
    size_t comma = writers.find(',', start);
    if (writers.compare(start, comma == std::string::npos ? std::string::npos : comma - start,
                        user) == 0)
      return true;
    if (comma == std::string::npos) return false;
    start = comma + 1;
  }
}

}  // namespace

OrderCheck check_plant_order(const json::object& plan, const std::vector<AuditEntry>& audit,
                             const std::string& writer) {
  // First write by planter, first write by anyone, and ready events, per cluster \n key.
  std::map<std::string, size_t> planter_write, any_write;
  std::map<std::string, std::map<std::string, size_t>> ready;  // what -> key -> index
  for (const AuditEntry& e : audit) {
    std::string k = e.cluster + "\n" + e.object;
    if (is_write(e)) {
      any_write.emplace(k, e.index);
      if (is_writer(writer, e.user)) planter_write.emplace(k, e.index);
    }
    if (!e.what.empty()) ready[e.what].emplace(k, e.index);
  }
  OrderCheck out;
  for (const json::value& uv : plan.at("units").as_array()) {
    const json::object& u = uv.as_object();
    std::string cluster = audit_cluster(u.at("cluster").as_string());
    std::string unit_key = cluster + "\n" + key_of_id(std::string(u.at("object").as_string()));
    auto written = planter_write.find(unit_key);
    if (written == planter_write.end()) continue;
    ++out.units_written;
    for (const json::value& rv : u.at("requires").as_array()) {
      const json::object& r = rv.as_object();
      std::string when(r.at("when").as_string());
      std::string rkey = audit_cluster(r.at("cluster").as_string()) + "\n" +
                         key_of_id(std::string(r.at("object").as_string()));
      // A stack's fit is a judgement about nodes, not an event of the log: the sim's scheduler
      // judges it (tests/plant/stack_test.cpp).
      if (when == "stack-fits") continue;
      bool external = r.contains("external");
      std::optional<size_t> held;
      auto find = [&](const std::map<std::string, size_t>& m) -> std::optional<size_t> {
        auto it = m.find(rkey);
        return it == m.end() ? std::nullopt : std::optional<size_t>(it->second);
      };
      if (when == "cluster-ready") {
        held = find(ready["provisioned"]);
      } else if (when == "active" || when == "established" || when == "available" ||
                 when == "endpoints-ready") {
        held = find(ready[when]);
        // A Namespace that was there before the sim's log began (default, kube-system) held
        // from the start.
        if (!held && external && when == "active" && !any_write.contains(rkey)) held = 0;
        // A kind whose CRD is not in the seed ("group/v|Kind||"): held when a CRD of its group
        // became established, or from the start when none of its group was ever written (the
        // management cluster's own CRDs).
        if (!held && external && when == "established" && rkey.ends_with("||")) {
          std::string id(r.at("object").as_string());
          std::string group = id.substr(0, id.find('/'));
          std::string cluster = audit_cluster(r.at("cluster").as_string());
          bool written = false;
          for (const auto& [k, index] : any_write)
            if (k.starts_with(cluster + "\napiextensions.k8s.io|CustomResourceDefinition||") &&
                k.ends_with("." + group))
              written = true;
          for (const auto& [k, index] : ready["established"])
            if (k.starts_with(cluster + "\n") && k.ends_with("." + group) &&
                (!held || index < *held))
              held = index;
          if (!held && !written) held = 0;
        }
      } else if (when.starts_with("node-capability=")) {
        // The nodes the sim configures (workloads/node_configuration.cpp) say when each came
        // back configured; a cluster whose nodes needed no configuration had them from the start.
        std::string cluster = audit_cluster(r.at("cluster").as_string());
        bool configures = false;
        for (const auto& [k, index] : ready["configured"])
          if (k.starts_with(cluster + "\n")) {
            configures = true;
            if (!held || index < *held) held = index;
          }
        if (!configures) held = 0;
      } else if (when == "condition=Complete") {
        held = find(ready["complete"]);  // the sim's Job controller says when
      } else if (when == "healthy") {
        // The sim's controllers say when a workload is fully available and a Job complete; for
        // other kinds healthy is existence.
        std::string kind = key_of_id(std::string(r.at("object").as_string()));
        kind = kind.substr(kind.find('|') + 1);
        kind = kind.substr(0, kind.find('|'));
        if (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet")
          held = find(ready["available"]);
        else if (kind == "Job")
          held = find(ready["complete"]);
        else
          held = find(any_write);
      } else {
        held = find(any_write);
        if (!held && external) held = 0;
      }
      ++out.requirements_checked;
      if (!held || *held >= written->second)
        out.violations.push_back(fmt::format("{} on {} written at line {} before {} {} held{}",
                                             std::string(u.at("object").as_string()), cluster,
                                             written->second,
                                             std::string(r.at("object").as_string()), when,
                                             held ? fmt::format(" (line {})", *held) : " (never)"));
    }
  }
  return out;
}

OrderCheck check_uproot_order(const json::object& plan, const std::vector<AuditEntry>& audit,
                              const std::string& writer) {
  std::map<std::string, size_t> deleted;
  for (const AuditEntry& e : audit)
    if (e.verb == "delete" && is_writer(writer, e.user))
      deleted.emplace(e.cluster + "\n" + e.object, e.index);
  OrderCheck out;
  const json::array& units = plan.at("units").as_array();
  for (const json::value& uv : units) {
    const json::object& u = uv.as_object();
    std::string ukey = audit_cluster(u.at("cluster").as_string()) + "\n" +
                       key_of_id(std::string(u.at("object").as_string()));
    auto mine = deleted.find(ukey);
    if (mine == deleted.end()) continue;
    ++out.units_written;
    for (const json::value& rv : u.at("requires").as_array()) {
      const json::object& r = rv.as_object();
      std::string rkey = audit_cluster(r.at("cluster").as_string()) + "\n" +
                         key_of_id(std::string(r.at("object").as_string()));
      auto theirs = deleted.find(rkey);
      if (theirs == deleted.end()) continue;
      ++out.requirements_checked;
      if (theirs->second <= mine->second)
        out.violations.push_back(
            fmt::format("{} deleted at line {}, after what it requires, {} (line {})", ukey,
                        mine->second, rkey, theirs->second));
    }
  }
  return out;
}

}  // namespace planter::testing
