// The three patch formats a kube-apiserver accepts besides server-side apply: JSON merge patch
// (RFC 7386), JSON patch (RFC 6902) and strategic merge patch (built-in kinds only).
//
// Each returns the patched document, or an Error whose message the server puts in a Status.
#pragma once

#include <boost/json/value.hpp>

#include "model/result.h"

namespace planter::sim {

Result<boost::json::value> apply_merge_patch(const boost::json::value& target,
                                             const boost::json::value& patch);

Result<boost::json::value> apply_json_patch(const boost::json::value& target,
                                            const boost::json::value& patch);

// Strategic merge patch without the Go types' struct tags: lists merge by the key that
// Kubernetes declares for them (containers by name, ports by containerPort or port, volumeMounts
// by mountPath, ...), other lists are replaced; `$patch`, `$retainKeys`, `$setElementOrder/` and
// `$deleteFromPrimitiveList/` directives are honoured.
Result<boost::json::value> apply_strategic_merge_patch(const boost::json::value& target,
                                                       const boost::json::value& patch);

}  // namespace planter::sim
