// A place in an object's body, parsed once and walked by one walker: object keys, and list
// indices as "[i]" steps ("spec.workerGroupSpecs[0].template.spec.affinity"). Where the stack step
// writes policies (pod_targets.h) and where planting steers pods (steer.h).
#pragma once

#include <boost/json/value.hpp>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace planter {

using PodPath = std::vector<std::string>;

namespace pod_path {

// "spec.template.spec.affinity", "spec.workerGroupSpecs[0].template".
std::string text(const PodPath& p);
// A dotted path of keys only ("spec.replicas").
PodPath plain(std::string_view dotted);
PodPath concat(PodPath p, std::initializer_list<std::string_view> more);
// The index of a list step "[i]"; SIZE_MAX (past every list's end) when it is not one.
size_t index_of(const std::string& step);

// Follows steps [from, to) from `at` (a json::value, const or not); nullptr when one is missing.
template <class Value>
Value* walk(Value* at, PodPath::const_iterator from, PodPath::const_iterator to) {
  for (; at && from != to; ++from) {
    const std::string& step = *from;
    if (step.front() == '[')
      at = at->is_array() && index_of(step) < at->as_array().size()
               ? &at->as_array()[index_of(step)]
               : nullptr;
    else
      at = at->is_object() ? at->as_object().if_contains(step) : nullptr;
  }
  return at;
}

const boost::json::value* resolve(const boost::json::value& root, const PodPath& p);
// The object at `p` from an object's root; null when a step is missing or it is not an object.
boost::json::object* object_at(boost::json::object& body, const PodPath& p);
// Makes the objects along `p` (and the leaf, as an object or a list) where they are missing.
// False when something in the way is neither (the author's value stays, nothing is written).
bool ensure(boost::json::value& root, const PodPath& p, bool leaf_is_list);
// Every concrete path a pattern with "*" and "[*]" steps reaches in `root`, added to `out`.
// `make_leaf`: the last step may name what is to be made (a container's resources).
void expand(const boost::json::value& at, const std::vector<std::string_view>& steps, size_t i,
            PodPath& cur, std::vector<PodPath>& out, bool make_leaf);

}  // namespace pod_path
}  // namespace planter
