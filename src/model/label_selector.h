// Kubernetes label selectors: the string form (`a=b,c!=d,e in (f,g),!h`) used by
// `planter.nephio.org/cluster-selector`, and the structured form (matchLabels/matchExpressions)
// used by admission webhooks. An empty selector matches everything.
#pragma once

#include <boost/json/fwd.hpp>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace planter {

using Labels = std::map<std::string, std::string, std::less<>>;

class LabelSelector {
 public:
  enum class Op { kIn, kNotIn, kExists, kDoesNotExist };
  struct Term {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };

  static Result<LabelSelector> parse(std::string_view text);
  static Result<LabelSelector> from_json(const boost::json::value& v);

  bool matches(const Labels& labels) const;
  bool empty() const { return terms_.empty(); }
  // The string form, as a list's `labelSelector` query takes it: "a=b,c in (d,e),!f".
  std::string str() const;

 private:
  std::vector<Term> terms_;
};

// metadata.labels of a JSON object (string values only).
Labels labels_of(const boost::json::object* labels);

}  // namespace planter
