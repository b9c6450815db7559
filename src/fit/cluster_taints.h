// Cluster taints and the tolerations of a choice of clusters (docs/placement.md, "Cluster taints"),
// with Open Cluster Management's effects: a planter Cluster's spec.taints [{key, value, effect,
// timeAdded}], a choice's tolerations [{key, operator, value, effect, tolerationSeconds}], matched
// as kube-scheduler matches node taints (an empty key with Exists tolerates every taint, an empty
// effect every effect).
//
//   NoSelect        a choice does not take the cluster, and gives it up if it had it;
//   NoSelectIfNew   a choice keeps the cluster if it had it, and does not take it anew;
//   PreferNoSelect  a choice takes the cluster only when it cannot be made without it.
//
// tolerationSeconds bounds how long a toleration holds a NoSelect or PreferNoSelect taint: until
// the taint's timeAdded plus that many seconds (a taint without timeAdded is tolerated for good).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace planter::fit {

struct ClusterTaint {
  std::string key, value, effect;  // effect: NoSelect, NoSelectIfNew or PreferNoSelect
  std::optional<std::chrono::system_clock::time_point> added;
  bool operator==(const ClusterTaint&) const = default;
};

struct ClusterToleration {
  std::string key;
  std::string op = "Equal";  // Equal or Exists
  std::string value, effect;
  std::optional<int64_t> seconds;  // tolerationSeconds
};

// How a cluster's taints leave it to a choice, the worst first.
enum class TaintVerdict { kNone, kPreferNot, kOnlyIfKept, kRefused };

struct TaintJudgement {
  TaintVerdict verdict = TaintVerdict::kNone;
  // Not kNone: the taint that decided it, for people ("taint maintenance=true:NoSelect is not
  // tolerated").
  std::string why;
};

TaintJudgement judge_taints(const std::vector<ClusterTaint>& taints,
                            const std::vector<ClusterToleration>& tolerations,
                            std::chrono::system_clock::time_point now);

// From when a choice that holds the cluster must give it up (a NoSelect taint it does not
// tolerate, or no longer: timeAdded plus tolerationSeconds): `now` when that is so already, the
// time its last toleration ends, or none while the taints leave the cluster to the choice.
std::optional<std::chrono::system_clock::time_point> given_up_from(
    const std::vector<ClusterTaint>& taints, const std::vector<ClusterToleration>& tolerations,
    std::chrono::system_clock::time_point now);

// The taint the operator puts on a cluster whose API has not answered for a while (NoSelect,
// timeAdded when it stopped answering), and takes off when it answers (docs/placement.md).
inline constexpr const char* kUnreachableTaint = "planter.nephio.org/unreachable";

// "maintenance=true:NoSelect".
std::string taint_text(const ClusterTaint& taint);

}  // namespace planter::fit
