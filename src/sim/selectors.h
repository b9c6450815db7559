// Label and field selectors as a kube-apiserver parses them from `labelSelector=` and
// `fieldSelector=` query parameters.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace planter::sim {

class LabelSelector {
 public:
  // "app=x,tier in (a,b),!legacy,env!=prod"; an empty string selects everything.
  static Result<LabelSelector> parse(std::string_view text);
  bool matches(const boost::json::object& object) const;
  bool empty() const { return requirements_.empty(); }

 private:
  enum class Op { kEquals, kNotEquals, kIn, kNotIn, kExists, kNotExists };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };
  std::vector<Requirement> requirements_;
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
