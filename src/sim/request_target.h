// A request target as it arrives on the wire ("/api/v1/pods?labelSelector=a%3Db"): the path
// percent-decoded, the query's pairs decoded (`+` a space) into the request, as Go's net/url reads
// them for kube-apiserver. Whatever the bytes, the result is a path and pairs; routing judges them.
#pragma once

#include <string>
#include <string_view>

#include "sim/api.h"

namespace planter::sim {

// Returns the decoded path (as sent when an escape in it is malformed: routing then finds
// nothing); fills req.query. A key given twice keeps its first value (kube-apiserver converts a
// query's values to a single option by taking the first); a pair with a malformed escape is
// dropped, as url.ParseQuery drops it; empty keys are dropped.
std::string split_request_target(std::string_view target, Request& req);

}  // namespace planter::sim
