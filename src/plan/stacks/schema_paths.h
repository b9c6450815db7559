// Whether a CRD's structural schema keeps a field planter writes into a custom resource: the API
// server prunes fields its schema does not declare (unless x-kubernetes-preserve-unknown-fields
// keeps them), answering with a warning only, so a stack's policy written where the schema has
// no room would be lost without an error.
#pragma once

#include <boost/json/fwd.hpp>
#include <string_view>

namespace planter {

// `path` as pod targets say it: "spec.template.spec.affinity", "spec.pods[0].tolerations". True
// when every step is a declared property (or items of an array), or lies below a node that
// preserves unknown fields or whose additionalProperties takes any field.
bool schema_keeps(const boost::json::object& schema, std::string_view path);

}  // namespace planter
