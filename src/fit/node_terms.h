// Required nodeSelectorTerms (a pod's node affinity, a volume's node affinity, a storage class's
// allowedTopologies), read once and matched against many nodes: the terms are ORed; within a
// term every requirement must hold; a term with no requirement matches nothing. Operators In,
// NotIn, Exists, DoesNotExist, Gt, Lt on labels; matchFields on metadata.name (In, NotIn). A
// requirement kube-apiserver would not accept (a key that is not a qualified name, a value that
// is not a label value, Gt/Lt without one integer) makes its term match nothing, as
// kube-scheduler's selector parsing does.
#pragma once

#include <boost/json/array.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "model/label_selector.h"

namespace planter::fit {

class NodeTerms {
 public:
  NodeTerms() = default;
  explicit NodeTerms(const boost::json::array& terms);
  // No terms at all (allowedTopologies not given: every node).
  bool empty() const { return terms_.empty(); }
  // One term matches the node of these labels and this name.
  bool matches(const Labels& labels, const std::string& name) const;

 private:
  enum class Op { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };
  struct Requirement {
    std::string key;  // a label; empty for matchFields' metadata.name
    bool field = false;
    Op op = Op::kIn;
    std::vector<std::string> values;
    int64_t number = 0;  // Gt, Lt
    bool holds(const std::string* value) const;
  };
  struct Term {
    bool valid = false;  // false: matches nothing
    std::vector<Requirement> requirements;
  };
  std::vector<Term> terms_;
};

}  // namespace planter::fit
