// Label and field selectors as a kube-apiserver parses them from `labelSelector=` and
// `fieldSelector=` query parameters.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace planter::sim {

// One requirement of a label selector, whichever form it was written in: a query's
// `tier in (a,b)`, `!legacy`, `env!=prod`, or a metav1.LabelSelector's matchLabels and
// matchExpressions. `=` is In with one value and `!=` NotIn with one value, as in apimachinery's
// labels.Requirement.
struct LabelRequirement {
  enum class Op { kIn, kNotIn, kExists, kDoesNotExist };
  std::string key;
  Op op = Op::kExists;
  std::vector<std::string> values;
};

// Every requirement holds for `labels` (null: an object without labels). NotIn and DoesNotExist
// hold where the label is missing.
bool labels_match(const std::vector<LabelRequirement>& requirements,
                  const boost::json::object* labels);

class LabelSelector {
 public:
  // "app=x,tier in (a,b),!legacy,env!=prod"; an empty string selects everything.
  static Result<LabelSelector> parse(std::string_view text);
  bool matches(const boost::json::object& object) const;
  bool empty() const { return requirements_.empty(); }

 private:
  std::vector<LabelRequirement> requirements_;
};

class FieldSelector {
 public:
  // "metadata.name=x,status.phase!=Running". `kind` decides which fields may be selected, as
  // each real resource supports only a few; an unsupported field is an error.
  static Result<FieldSelector> parse(std::string_view text, std::string_view kind, bool custom);
  bool matches(const boost::json::object& object) const;
  bool empty() const { return terms_.empty(); }

 private:
  struct Term {
    std::vector<std::string> path;
    std::string value;
    bool negate = false;
  };
  std::vector<Term> terms_;
};

}  // namespace planter::sim
