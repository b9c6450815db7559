// Kubernetes' protobuf wire format, as far as the sim needs it.
//
// Typed clients (kubectl's imperative commands, Helm's release storage) always send built-in
// objects as `application/vnd.kubernetes.protobuf`, whatever the server prefers; the sim decodes
// the kinds those clients write (protobuf_schema.h lists them) into JSON and answers in JSON,
// which every client accepts. Other kinds get 415 with a message saying so.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

#include "model/result.h"

namespace planter::sim {

constexpr std::string_view kProtobufMedia = "application/vnd.kubernetes.protobuf";

// Decodes a "k8s\0"-prefixed runtime.Unknown envelope holding one of the supported kinds.
Result<boost::json::object> decode_kubernetes_protobuf(std::string_view body);

// The smallest valid OpenAPI v2 document in gnostic's protobuf encoding: swagger "2.0", an info
// block and no definitions (kubectl then skips client-side schema validation, as it does for
// kinds a real server's document does not describe).
std::string empty_openapi_v2_protobuf();

}  // namespace planter::sim
