// The matching rules pods and nodes meet in kube-scheduler's filters and in the DaemonSet
// controller: label selectors (metav1.LabelSelector), node selector terms (nodeSelector and
// node affinity), taints and tolerations. Written from the Kubernetes API reference; the sim's
// own, shared with no planter code.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/selectors.h"

namespace planter::sim::sched {

// A metav1.LabelSelector against labels: null (or not an object) selects nothing, {} selects
// everything; matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist) are ANDed.
bool label_selector_matches(const boost::json::value* selector, const boost::json::object* labels);

// A metav1.LabelSelector read once, for matching many label sets (the same rules as
// label_selector_matches).
class CompiledSelector {
 public:
  CompiledSelector() : nothing_(true) {}
  explicit CompiledSelector(const boost::json::value* selector);
  bool matches(const boost::json::object* labels) const;
  bool selects_everything() const { return !nothing_ && requirements_.empty(); }

 private:
  bool nothing_ = false;
  std::vector<LabelRequirement> requirements_;
};

// A node's string-valued labels, read out of its JSON once.
using NodeLabels = std::map<std::string, std::string, std::less<>>;

// One NodeSelectorRequirement, read once: In, NotIn, Exists, DoesNotExist, Gt, Lt on a label
// (or, for matchFields, on metadata.name). One kube-scheduler cannot parse into a selector (an
// invalid key, or an invalid value for In and NotIn, a bound that is not an integer, an unknown
// operator) matches nothing.
struct NodeRequirement {
  NodeRequirement(const boost::json::object& requirement, bool field);
  bool matches(const boost::json::object* labels) const;
  bool matches(const NodeLabels& labels) const;
  // Against the value the key has (nullptr: none).
  bool matches_value(const std::string_view* value) const;

  enum class Op { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt, kNever };
  std::string key;
  Op op = Op::kNever;
  std::vector<std::string> values;
  std::optional<int64_t> bound;  // Gt and Lt
};

// One NodeSelectorTerm, read once: its matchExpressions (on the node's labels) and matchFields
// (metadata.name) ANDed; a term with neither matches nothing.
class NodeSelectorTerm {
 public:
  explicit NodeSelectorTerm(const boost::json::object& term);
  bool matches(const boost::json::object& node) const;
  bool matches(const NodeLabels& labels, std::string_view node_name) const;

 private:
  bool fields_match(std::string_view node_name) const;
  bool never_ = false;
  std::vector<NodeRequirement> expressions_, fields_;
};
bool node_selector_term_matches(const boost::json::object& term, const boost::json::object& node);

// The pod's spec.nodeSelector and requiredDuringSchedulingIgnoredDuringExecution node affinity
// (terms ORed), read once per attempt: both admit the node. Default: admits every node.
class RequiredNodeAffinity {
 public:
  RequiredNodeAffinity() = default;
  explicit RequiredNodeAffinity(const boost::json::object& pod_spec);
  bool matches(const boost::json::object& node) const;
  // The same, on a node's string labels already read (its JSON stays untouched).
  bool matches(const NodeLabels& labels, std::string_view node_name) const;

 private:
  bool has_selector_ = false;
  boost::json::object selector_;
  bool has_terms_ = false;
  std::vector<NodeSelectorTerm> terms_;
};

// The pod's preferredDuringSchedulingIgnoredDuringExecution node affinity, read once per attempt:
// the sum of the weights of the terms a node matches.
class PreferredNodeAffinity {
 public:
  PreferredNodeAffinity() = default;
  explicit PreferredNodeAffinity(const boost::json::object& pod_spec);
  // No term with a weight.
  bool empty() const { return terms_.empty(); }
  int64_t weight(const NodeLabels& labels, std::string_view node_name) const;

 private:
  std::vector<std::pair<NodeSelectorTerm, int64_t>> terms_;
};

struct Taint {
  std::string key, value, effect;
};
std::vector<Taint> taints_of(const boost::json::object& node);

// A toleration tolerates a taint when the effects agree (an empty effect tolerates every
// effect), and the keys agree (an empty key with Exists tolerates every key) and, for Equal
// (the default operator), the values are equal.
bool tolerates(const boost::json::object& toleration, const Taint& taint);
bool tolerated(const boost::json::object& pod_spec, const Taint& taint);

// The first of the node's taints with effect NoSchedule or NoExecute that the pod does not
// tolerate, or nullptr. `taints` are the node's.
const Taint* first_untolerated(const boost::json::object& pod_spec,
                               const std::vector<Taint>& taints);

// How many of the node's PreferNoSchedule taints the pod does not tolerate.
int64_t intolerable_preferred_taints(const boost::json::object& pod_spec,
                                     const std::vector<Taint>& taints);

}  // namespace planter::sim::sched
