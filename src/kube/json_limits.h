// How deep the client lets JSON nest. Boost.JSON stops at 32 levels by default; CRDs with their
// OpenAPI schemas (cert-manager's) and managedFields go deeper. kube-apiserver itself allows
// 10,000; the client's answers come from a server that checked them, so it follows.
#pragma once

#include <boost/json/parse_options.hpp>

namespace planter::kube {

inline boost::json::parse_options json_limits() {
  boost::json::parse_options o;
  o.max_depth = 10000;
  return o;
}

}  // namespace planter::kube
