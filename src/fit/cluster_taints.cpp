#include "fit/cluster_taints.h"

#include <fmt/format.h>

#include <algorithm>

namespace planter::fit {

namespace {

bool matches(const ClusterToleration& t, const ClusterTaint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) return false;
  if (t.key.empty()) return t.op == "Exists";
  if (t.key != taint.key) return false;
  return t.op == "Exists" || t.value == taint.value;
}

// Whether some toleration holds the taint at `now`.
bool tolerated(const ClusterTaint& taint, const std::vector<ClusterToleration>& tolerations,
               std::chrono::system_clock::time_point now) {
  for (const ClusterToleration& t : tolerations) {
    if (!matches(t, taint)) continue;
    bool timed = t.seconds && taint.added && taint.effect != "NoSelectIfNew";
    if (!timed || now < *taint.added + std::chrono::seconds(*t.seconds)) return true;
  }
  return false;
}

TaintVerdict verdict_of(const std::string& effect) {
  if (effect == "NoSelect") return TaintVerdict::kRefused;
  if (effect == "NoSelectIfNew") return TaintVerdict::kOnlyIfKept;
  if (effect == "PreferNoSelect") return TaintVerdict::kPreferNot;
  return TaintVerdict::kNone;
}

}  // namespace

std::string taint_text(const ClusterTaint& taint) {
  return taint.value.empty() ? fmt::format("{}:{}", taint.key, taint.effect)
                             : fmt::format("{}={}:{}", taint.key, taint.value, taint.effect);
}

TaintJudgement judge_taints(const std::vector<ClusterTaint>& taints,
                            const std::vector<ClusterToleration>& tolerations,
                            std::chrono::system_clock::time_point now) {
  TaintJudgement out;
  for (const ClusterTaint& taint : taints) {
    TaintVerdict v = verdict_of(taint.effect);
    if (v <= out.verdict || tolerated(taint, tolerations, now)) continue;
    out.verdict = v;
    out.why = fmt::format("taint {} is not tolerated", taint_text(taint));
  }
  return out;
}

std::optional<std::chrono::system_clock::time_point> given_up_from(
    const std::vector<ClusterTaint>& taints, const std::vector<ClusterToleration>& tolerations,
    std::chrono::system_clock::time_point now) {
  std::optional<std::chrono::system_clock::time_point> earliest;
  for (const ClusterTaint& taint : taints) {
    if (taint.effect != "NoSelect") continue;
    // Held until the longest toleration that matches it ends; for good by one without an end.
    std::optional<std::chrono::system_clock::time_point> until = now;
    for (const ClusterToleration& t : tolerations) {
      if (!matches(t, taint)) continue;
      if (!t.seconds || !taint.added) {
        until.reset();
        break;
      }
      until = std::max(*until, *taint.added + std::chrono::seconds(*t.seconds));
    }
    if (until && (!earliest || *until < *earliest)) earliest = until;
  }
  return earliest;
}

}  // namespace planter::fit
