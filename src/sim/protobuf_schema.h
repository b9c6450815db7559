// The protobuf field numbers of the built-in kinds the sim decodes, from the Kubernetes API's
// generated.proto files (part of the API's stability guarantee): what typed clients send as
// application/vnd.kubernetes.protobuf. kubectl's imperative commands (create namespace,
// configmap, secret, deployment, job, cronjob, service, serviceaccount, role, rolebinding,
// clusterrole, clusterrolebinding; run; expose) and Helm's release storage.
#pragma once

#include <string_view>
#include <vector>

namespace planter::sim::proto {

enum class Kind {
  kString,
  kInt64,  // any varint integer (int32 and int64)
  kBool,
  kTime,  // meta/v1 Time: RFC 3339 in JSON
  kMessage,
  kStringMap,    // map<string, string>
  kBytesMap,     // map<string, bytes>: base64 in JSON
  kQuantityMap,  // map<string, resource.Quantity>
  kIntOrString,  // intstr.IntOrString
  kRaw,          // runtime.Unknown's raw bytes
};

struct Message;
struct Field {
  int number;
  const char* name;
  Kind kind;
  bool repeated = false;
  const Message* message = nullptr;
  // Optional scalars whose zero value is meaningful (Go pointers: replicas: 0); other zero
  // integers and false booleans are omitted, as JSON's omitempty omits them.
  bool keep_zero = false;
};
struct Message {
  std::vector<Field> fields;
};

extern const Message kUnknown;  // runtime.Unknown, the "k8s\0" envelope

// The message of a top-level kind, or nullptr when the sim does not decode it.
const Message* message_for(std::string_view api_version, std::string_view kind);

}  // namespace planter::sim::proto
