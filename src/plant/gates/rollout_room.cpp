// The gate of `rollout-room` (rule: src/plan/rules/rollout.cpp, a roll-out's maxUnavailable):
// a unit of an object that rolls out over several clusters is declared only while fewer than
// `arg` of the object's other clusters are not available, as KubeFleet's rolling update bounds
// the clusters unavailable at once, counting what is already there. Another cluster's unit is
// not available while it is being declared, failed or blocked, once declared until its object is
// healthy, and before that while the object it finds there (an earlier version) is not healthy,
// or cannot be read yet (its watch has not listed: its cluster may not answer). A unit on a
// cluster its choice did not choose counts for nothing.
//
// Each check counts the object's units again (its clusters: docs/limits.md); every change of the
// object on any of them, and every cluster's watches catching up, looks at the waiting units
// again through one key per object.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/object.h"
#include "plant/gates/gate.h"

namespace planter::plant {

namespace {

class RolloutRoomGate : public Gate {
 public:
  explicit RolloutRoomGate(GateContext& c) : c_(c) {}

  void require(size_t u, const Requirement&, std::vector<std::string>& keys) override {
    size_t object = c_.plan.units[u].object;
    keys.push_back(room_key(object));
    if (units_.contains(object)) return;
    const Object& o = c_.plan.objects[object];
    std::vector<size_t>& units = units_[object];
    for (size_t v = 0; v < c_.plan.units.size(); ++v)
      if (c_.plan.units[v].object == object) {
        units.push_back(v);
        c_.fleet.watch(c_.plan.units[v].cluster, o.ref.api_version, o.ref.kind);
      }
    by_key_[object_key(o.ref.group(), o.ref.kind, o.ref.ns, o.ref.name)] = object;
    kinds_.insert(o.ref.kind);
  }

  // Whether there is room reads the object on each of its clusters, declared there or not.
  void read_for_the_run(std::vector<std::string>& clusters) const override {
    for (const auto& [object, units] : units_)
      for (size_t v : units) clusters.push_back(c_.plan.units[v].cluster);
  }

  std::optional<Wait> check(size_t u, const Requirement& r) override {
    size_t object = c_.plan.units[u].object;
    const ObjectRef& ref = c_.plan.objects[object].ref;
    std::vector<std::string> out;
    for (size_t v : units_[object])
      if (v != u && !available(v, ref)) out.push_back(c_.plan.units[v].cluster);
    int64_t most = std::strtoll(r.when.arg.c_str(), nullptr, 10);
    if (static_cast<int64_t>(out.size()) < most) return std::nullopt;
    if (out.size() > 5) {
      out.resize(5);
      out.back() = "...";
    }
    return Wait{fmt::format("{} not available on {}: maxUnavailable {}", ref.short_form(),
                            fmt::join(out, ", "), most),
                true};
  }

  std::vector<std::string_view> kinds_read() const override { return {"*"}; }

  // Every kind's changes come here ("*"): only those of the kinds rolled out are looked up.
  void changed(const std::string&, const boost::json::object& o) override {
    const boost::json::value* kind = o.if_contains("kind");
    if (!kind || !kind->is_string() || !kinds_.contains(std::string_view(kind->get_string())))
      return;
    auto it = by_key_.find(object_key(
        split_api_version(string_field(o, {"apiVersion"})).first, string_field(o, {"kind"}),
        string_field(o, {"metadata", "namespace"}), string_field(o, {"metadata", "name"})));
    if (it != by_key_.end()) c_.wake(room_key(it->second));
  }

  void synced(const std::string&) override {
    for (const auto& [object, _] : units_) c_.wake(room_key(object));
  }

 private:
  static std::string room_key(size_t object) { return fmt::format("rollout-room\n{}", object); }

  bool available(size_t v, const ObjectRef& ref) const {
    if (c_.not_chosen && c_.not_chosen(v)) return true;
    bool pending = c_.pending(v);
    if (!pending && !c_.declared(v)) return false;  // being declared, failed or blocked
    const std::string& cluster = c_.plan.units[v].cluster;
    if (!c_.fleet.synced(cluster, ref.api_version, ref.kind)) return false;
    Readiness ok = c_.fleet.readiness(cluster, ref.api_version, ref.kind, ref.ns, ref.name,
                                      ReadinessPredicate::of(ReadinessPredicate::Type::kHealthy));
    // Not there yet: nothing of it is unavailable until it is declared.
    if (pending && !ok.exists) return true;
    return ok.holds;
  }

  GateContext& c_;
  std::map<size_t, std::vector<size_t>> units_;  // object -> its units
  std::map<std::string, size_t> by_key_;         // object_key -> object
  std::set<std::string, std::less<>> kinds_;     // the kinds of those objects
};

}  // namespace

std::unique_ptr<Gate> make_rollout_room_gate(GateContext& context) {
  return std::make_unique<RolloutRoomGate>(context);
}

}  // namespace planter::plant
