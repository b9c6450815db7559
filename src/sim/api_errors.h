// The Status responses a kube-apiserver answers errors with, worded as it words them, so that
// kubectl and the client libraries print what users know ("deployments.apps \"web\" not found").
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "sim/api.h"
#include "sim/catalog.h"

namespace planter::sim {

// The `details` of a Status about one object of type `t`.
boost::json::object details_for(const ResourceType& t, std::string_view name);

// 404 for an object of `t` that does not exist.
Response not_found(const ResourceType& t, std::string_view name);
// 404 for a namespace a request names that does not exist.
Response namespace_not_found(std::string_view ns);
// 404 for a path no resource serves.
Response page_not_found();
Response bad_request(std::string message);
// 405: the resource does not allow the request's verb.
Response method_not_allowed();
// 409 for a write whose resourceVersion is not the stored one.
Response conflict(const ResourceType& t, std::string_view name);

// One field a 422 Invalid response names.
struct Cause {
  std::string type;  // FieldValueInvalid, FieldValueRequired, ...
  std::string message;
  std::string field;
};
// 422: `name` of `t` is invalid for every reason in `causes`.
Response invalid(const ResourceType& t, std::string_view name, std::vector<Cause> causes);

}  // namespace planter::sim
