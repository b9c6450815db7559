// config.kubernetes.io/apply-time-mutation, as cli-utils (kpt live apply, Config Sync) reads it:
// a YAML list of substitutions, each copying the value at `sourcePath` of another object of the
// seed (`sourceRef`) into `targetPath` of this one, whole or in place of a `token` inside a
// string, at the moment this object is declared. The rule apply-time-mutation makes the object
// wait until the source's field is set; the engine substitutes at declare time. Unlike cli-utils,
// the source may be on another cluster, and a sourceRef without a namespace names the target's
// namespace (for a namespaced kind).
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/object.h"
#include "model/result.h"

namespace planter {

inline constexpr std::string_view kApplyTimeMutationAnnotation =
    "config.kubernetes.io/apply-time-mutation";

struct Substitution {
  std::string group, kind, ns, name;  // the source (ns as written; may be empty)
  std::string source_path;            // kubectl's form: {.status.url}
  std::string target_path;            // {.spec.endpoint}
  std::string token;                  // empty: the target value is replaced whole
};

// The substitutions of `target`'s annotation (none without one). Errors name the entry and what
// is wrong: YAML, a missing field, a path planter cannot follow, a token absent from the target.
Result<std::vector<Substitution>> read_substitutions(const Object& target);

// Writes `value` at s.target_path of `body`, creating missing maps; with a token, the string there
// gets the token replaced by the value's text. The error says why it cannot.
Result<bool> substitute(boost::json::object& body, const Substitution& s,
                        const boost::json::value& value);

}  // namespace planter
