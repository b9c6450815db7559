// A fleet that stands still, for the gates' table tests (tests/unit/gates/): the objects each
// cluster holds, which clusters are linked and which kinds they serve, all as the test sets them;
// it records what a gate asks it to watch and to check. Nothing is ever applied.
#pragma once

#include <boost/json.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/object.h"
#include "plant/fleet.h"
#include "plant/gates/gate.h"
#include "plant/readiness_check.h"
#include "seed/seed.h"
#include "unit/test_support.h"

namespace planter::plant::testing {

class StillFleet : public Fleet {
 public:
  // Objects written as YAML documents, on `cluster`.
  void hold(const std::string& yaml, const std::string& cluster = "SELF") {
    Seed seed;
    Diagnostics diags;
    parse_seed_text(yaml, "fleet.yaml", seed, diags);
    EXPECT_TRUE(diags.empty()) << diags.str();
    for (const Object& o : seed.objects)
      objects_[cluster + "\n" + o.ref.key()] = boost::json::object(o.body);
  }
  std::map<std::string, Link> links;       // every other cluster is linked
  std::map<std::string, KindState> kinds;  // "cluster\napiVersion\nkind"; else kUnknown
  std::set<std::string> watched, checked;  // "cluster apiVersion kind"

  void start() override {}
  void stop() override {}
  Link link(const std::string& cluster) const override {
    auto it = links.find(cluster);
    return it == links.end() ? Link::kLinked : it->second;
  }
  std::string link_status(const std::string& cluster) const override {
    return linked(cluster) ? "" : "Cluster/fleet/" + cluster + ": phase is Provisioning";
  }
  bool apply(const Unit&, boost::json::object, kube::ApplyOptions,
             kube::Client::ObjectDone) override {
    return false;
  }
  bool remove(const Unit&, const ObjectRef&, kube::DeleteOptions,
              kube::Client::ObjectDone) override {
    return false;
  }
  void watch(const std::string& cluster, const std::string& api_version, const std::string& kind,
             const std::string&, const std::string&) override {
    watched.insert(cluster + " " + api_version + " " + kind);
  }
  bool synced(const std::string&, const std::string&, const std::string&) const override {
    return true;
  }
  std::optional<boost::json::object> get(const std::string& cluster, const std::string& api_version,
                                         const std::string& kind, const std::string& ns,
                                         const std::string& name) const override {
    const boost::json::object* o = find(cluster, api_version, kind, ns, name);
    if (!o) return std::nullopt;
    return *o;
  }
  Readiness readiness(const std::string& cluster, const std::string& api_version,
                      const std::string& kind, const std::string& ns, const std::string& name,
                      const ReadinessPredicate& predicate) const override {
    return check_readiness(predicate, find(cluster, api_version, kind, ns, name));
  }
  void for_each(const std::string& cluster, const std::string& api_version, const std::string& kind,
                const std::function<void(const boost::json::object&)>& fn) const override {
    for (const auto& [key, o] : objects_)
      if (key.starts_with(cluster + "\n") && string_field(o, {"apiVersion"}) == api_version &&
          string_field(o, {"kind"}) == kind)
        fn(o);
  }
  KindState kind_state(const std::string& cluster, const std::string& api_version,
                       const std::string& kind) const override {
    auto it = kinds.find(cluster + "\n" + api_version + "\n" + kind);
    return it == kinds.end() ? KindState::kUnknown : it->second;
  }
  void check_kind(const std::string& cluster, const std::string& api_version,
                  const std::string& kind) override {
    checked.insert(cluster + " " + api_version + " " + kind);
  }
  void forget_kind(const std::string&, const std::string&, const std::string&) override {}

 private:
  const boost::json::object* find(const std::string& cluster, const std::string& api_version,
                                  const std::string& kind, const std::string& ns,
                                  const std::string& name) const {
    auto it = objects_.find(cluster + "\n" +
                            object_key(split_api_version(api_version).first, kind, ns, name));
    return it == objects_.end() ? nullptr : &it->second;
  }
  std::map<std::string, boost::json::object> objects_;  // cluster \n object key
};

// A gate over a planned seed and a StillFleet: what it says of one requirement of one unit.
struct GateBench {
  Plan plan;
  StillFleet fleet;
  EventLoop loop;
  GateContext context;
  std::unique_ptr<Gate> gate;

  // `kept`: the clusters earlier runs chose, by choice name.
  GateBench(const std::string& seed, std::unique_ptr<Gate> (*make)(GateContext&),
            std::map<std::string, std::vector<std::string>> kept = {})
      : plan(planned(seed)),
        context{plan,
                fleet,
                loop,
                [](const std::string&) {},
                [](size_t) { return true; },
                [](size_t) { return false; },
                [](size_t) { return false; },
                [](size_t, std::string) {},
                std::move(kept),
                [](const ClusterChoice&, const fit::ClusterChoiceResult&) {}},
        gate(make(context)) {}

  // "holds", or why it waits: the gate's check of the requirement of the unit `unit` (a short
  // form on `cluster`) on the object `on` (a short form, "Kind/" for a kind itself).
  std::string check(const std::string& unit, const std::string& on,
                    const std::string& cluster = "SELF") {
    const Unit* u = planter::testing::find_unit(plan, unit, cluster);
    if (!u) return "no unit " + unit + " on " + cluster;
    return check(*u, planter::testing::find_requirement(plan, *u, on));
  }
  // The same for the unit's requirement of a type (one that names no object of its own).
  std::string check(const std::string& unit, ReadinessPredicate::Type type,
                    const std::string& cluster = "SELF") {
    const Unit* u = planter::testing::find_unit(plan, unit, cluster);
    if (!u) return "no unit " + unit + " on " + cluster;
    for (const Requirement& r : u->requirements)
      if (r.when.type == type) return check(*u, &r);
    return check(*u, nullptr);
  }

 private:
  std::string check(const Unit& unit, const Requirement* r) {
    if (!r) return "no such requirement";
    const Unit* u = &unit;
    size_t index = static_cast<size_t>(u - plan.units.data());
    std::vector<std::string> keys;
    gate->require(index, *r, keys);
    std::optional<Gate::Wait> wait = gate->check(index, *r);
    return wait ? "waits: " + wait->why : "holds";
  }

  static Plan planned(const std::string& seed) {
    PlanOutcome out = planter::testing::plan_yaml(seed);
    EXPECT_TRUE(out.diags.empty()) << out.diags.str();
    return std::move(out.plan);
  }
};

}  // namespace planter::plant::testing
