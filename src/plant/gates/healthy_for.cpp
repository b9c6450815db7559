// The gate of `healthy-for` (rule: src/plan/rules/rollout.cpp, a stage's `after`): the object is
// healthy, as `healthy` judges it (plant/health.h), and this planting has seen it so, without a
// break, for the duration the predicate names. The clock starts when a check first finds it
// healthy (its watch's answer: the object's own history is not kept by the API server); a check
// that finds it unhealthy starts it again. While it counts, a timer wakes the waiting units when
// the time is up, so nothing polls.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <set>

#include "model/duration.h"
#include "model/object.h"
#include "plant/gates/gate.h"

namespace planter::plant {

namespace {

using Clock = EventLoop::Clock;

class HealthyForGate : public Gate {
 public:
  explicit HealthyForGate(GateContext& c) : c_(c) {}

  void require(size_t, const Requirement& r, std::vector<std::string>& keys) override {
    keys.push_back(object_wake_key(r.cluster, c_.plan.target(r)));
  }

  std::optional<Wait> check(size_t, const Requirement& r) override {
    const ObjectRef& target = c_.plan.target(r);
    std::string key = object_wake_key(r.cluster, target);
    Readiness ok = c_.fleet.readiness(r.cluster, target.api_version, target.kind, target.ns,
                                      target.name, ReadinessPredicate::of(Type::kHealthy));
    if (!ok.holds) {
      healthy_since_.erase(key);
      return Wait{ok.why};
    }
    auto wanted = parse_duration(r.when.arg).value_or(std::chrono::milliseconds{0});
    Clock::time_point now = Clock::now();
    Clock::time_point since = healthy_since_.try_emplace(key, now).first->second;
    auto left = std::chrono::ceil<std::chrono::milliseconds>(since + wanted - now);
    if (left <= std::chrono::milliseconds{0}) return std::nullopt;
    // One timer per object and time: the units that wait on it are woken together.
    if (timers_.emplace(key, since + wanted).second)
      c_.loop.post_after(left, [this, key, at = since + wanted] {
        timers_.erase({key, at});
        c_.wake(key);
      });
    return Wait{fmt::format("healthy for {} of {}, {} to go",
                            format_duration(std::chrono::ceil<std::chrono::seconds>(now - since)),
                            r.when.arg,
                            format_duration(std::chrono::ceil<std::chrono::seconds>(left)))};
  }

  void provider_declared(const Requirement& r) override {
    const ObjectRef& target = c_.plan.target(r);
    c_.fleet.watch(r.cluster, target.api_version, target.kind);
  }

 private:
  using Type = ReadinessPredicate::Type;
  GateContext& c_;
  std::map<std::string, Clock::time_point> healthy_since_;      // by wake key
  std::set<std::pair<std::string, Clock::time_point>> timers_;  // (wake key, when it fires)
};

}  // namespace

std::unique_ptr<Gate> make_healthy_for_gate(GateContext& context) {
  return std::make_unique<HealthyForGate>(context);
}

}  // namespace planter::plant
