// The JSONPath subset that readiness annotations use, in kubectl's form: `{.a.b}`, `.a.b[0].c`,
// `.status.conditions[?(@.type=="Ready")].status`. Parsed when the seed is planned, so a malformed
// `planter.nephio.org/ready-when` is bad input instead of a wait that can never end; evaluated by
// the engine (plant/readiness_check.h). Pure and thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace planter {

struct JsonPathStep {
  enum class Kind { kField, kIndex, kFilter } kind = Kind::kField;
  std::string field;  // kField: the key; kFilter: the field the element must have
  size_t index = 0;   // kIndex
  std::string value;  // kFilter: what that field must print as
};

// Steps from the object itself; errors name the expression and what is wrong with it. A field is
// `.name` or `['name.with.dots']`.
Result<std::vector<JsonPathStep>> parse_jsonpath(std::string_view expression);

// The value `steps` lead to in `object`, or null when a step is missing. No steps (`{.}`) lead to
// the object itself, which is not a json::value here: null too; the caller has the object.
const boost::json::value* locate_jsonpath(const boost::json::object& object,
                                          const std::vector<JsonPathStep>& steps);

// A value as kubectl's jsonpath prints it: strings bare, true/false, "" for null, JSON otherwise.
std::string jsonpath_text(const boost::json::value& value);

}  // namespace planter
