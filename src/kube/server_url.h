// A kubeconfig cluster's `server` URL in its parts, as the transport connects to it.
#pragma once

#include <string>

#include "model/result.h"

namespace planter::kube {

// "https://host:port/prefix": the scheme (https or http), the host (an IPv6 host in brackets),
// the port (the scheme's default when absent) and the path prefix (no trailing slash; a server
// reached through a proxy such as Rancher's keeps it).
struct ServerUrl {
  std::string scheme, host, port, prefix;
};

// An error for people when `server` is not such a URL.
Result<ServerUrl> parse_server(const std::string& server);

}  // namespace planter::kube
