// The gate of `established` (rule: src/plan/rules/crd.cpp): an object of a custom kind waits until
// its kind is served: the CRD the seed (or the requirement) names is Established, or, when none
// is named, some CRD of the cluster serves the group and kind; then discovery must list the kind
// (a kube-apiserver serves an Established CRD's kind a moment later). It watches the cluster's
// CRDs, remembers which CRD serves which kind, and asks discovery again, backing off, while a CRD
// says Established and discovery does not list its kind yet.
#include <fmt/format.h>

#include <set>
#include <unordered_map>

#include "model/object.h"
#include "plant/gates/gate.h"

namespace planter::plant {

namespace {

using std::chrono::milliseconds;
using Type = ReadinessPredicate::Type;

constexpr std::string_view kCrdApiVersion = "apiextensions.k8s.io/v1";

std::string kind_key(std::string_view cluster, std::string_view group, std::string_view kind) {
  return fmt::format("{}\nkind\n{}/{}", cluster, group, kind);
}

class EstablishedGate : public Gate {
 public:
  explicit EstablishedGate(GateContext& c) : c_(c) {}

  void require(size_t u, const Requirement& r, std::vector<std::string>& keys) override {
    const ObjectRef& target = c_.plan.target(r);
    const ObjectRef& own = c_.plan.object_of(c_.plan.units[u]).ref;
    c_.fleet.watch(r.cluster, std::string(kCrdApiVersion), "CustomResourceDefinition");
    if (!target.name.empty()) keys.push_back(object_wake_key(r.cluster, target));
    keys.push_back(kind_key(r.cluster, own.group(), own.kind));
  }

  std::optional<Wait> check(size_t u, const Requirement& r) override {
    const ObjectRef& target = c_.plan.target(r);
    const ObjectRef& own = c_.plan.object_of(c_.plan.units[u]).ref;
    // Without a CRD in the seed, the kind of the requirement is what must be served.
    const ObjectRef& served = target.name.empty() ? target : own;
    auto state = c_.fleet.kind_state(r.cluster, served.api_version, served.kind);
    if (state == Fleet::KindState::kServed) return std::nullopt;
    if (!c_.fleet.linked(r.cluster)) return Wait{c_.fleet.link_status(r.cluster)};
    auto crd = crd_readiness(r.cluster, target.name, served.group(), served.kind);
    bool established = crd && crd->holds;
    // A kind with no CRD in sight may still be served (an aggregated API, a previous install):
    // discovery is asked once; CRD events ask again.
    if (state == Fleet::KindState::kUnknown ||
        (established && state == Fleet::KindState::kMissing &&
         !retry_pending_.contains(kind_key(r.cluster, served.group(), served.kind))))
      c_.fleet.check_kind(r.cluster, served.api_version, served.kind);
    if (!crd) return Wait{target.name.empty() ? "no CRD serves it yet" : "not found"};
    if (!established) return Wait{crd->why};
    return Wait{fmt::format("{} {} not discoverable yet", served.api_version, served.kind)};
  }

  std::vector<std::string_view> kinds_read() const override { return {"CustomResourceDefinition"}; }
  void changed(const std::string& cluster, const boost::json::object& o) override {
    if (string_field(o, {"apiVersion"}) != kCrdApiVersion) return;
    std::string kk = kind_key(cluster, string_field(o, {"spec", "group"}),
                              string_field(o, {"spec", "names", "kind"}));
    crd_for_kind_[kk] = string_field(o, {"metadata", "name"});
    c_.wake(kk);
  }

  void kind_checked(const std::string& cluster, const std::string& api_version,
                    const std::string& kind) override {
    std::string_view group = split_api_version(api_version).first;
    std::string kk = kind_key(cluster, group, kind);
    if (c_.fleet.kind_state(cluster, api_version, kind) == Fleet::KindState::kMissing) {
      // The CRD says Established but discovery did not have the kind yet: look again soon,
      // backing off, for as long as the CRD keeps saying so. Without an established CRD, its
      // events ask again.
      auto crd = crd_readiness(cluster, "", group, kind);
      if (crd && crd->holds) {
        milliseconds& delay = kind_delay_[kk];
        delay = delay.count() == 0 ? milliseconds(20) : std::min(delay * 2, milliseconds(2000));
        retry_pending_.insert(kk);
        c_.loop.post_after(delay, [this, kk, cluster, api_version, kind] {
          retry_pending_.erase(kk);
          c_.fleet.check_kind(cluster, api_version, kind);
        });
      }
    } else {
      kind_delay_.erase(kk);
    }
    c_.wake(kk);
  }

 private:
  // Whether the CRD named `name` (or, without a name, the one whose events said it serves
  // `group`/`kind`) is Established; none when there is no such CRD.
  std::optional<Readiness> crd_readiness(const std::string& cluster, std::string name,
                                         std::string_view group, std::string_view kind) {
    if (name.empty()) {
      auto it = crd_for_kind_.find(kind_key(cluster, group, kind));
      if (it == crd_for_kind_.end()) return std::nullopt;
      name = it->second;
    }
    Readiness r =
        c_.fleet.readiness(cluster, std::string(kCrdApiVersion), "CustomResourceDefinition", "",
                           name, ReadinessPredicate::of(Type::kEstablished));
    if (!r.exists) return std::nullopt;
    return r;
  }

  GateContext& c_;
  std::unordered_map<std::string, std::string> crd_for_kind_;  // kind key -> CRD name
  std::unordered_map<std::string, milliseconds> kind_delay_;   // kind key -> next re-check delay
  std::set<std::string> retry_pending_;                        // kind keys with a re-check due
};

}  // namespace

std::unique_ptr<Gate> make_established_gate(GateContext& context) {
  return std::make_unique<EstablishedGate>(context);
}

}  // namespace planter::plant
