// One HTTP request to an API server and its answer, as the transport (transport.h) sends and
// receives them and the request guard (request_guard.h) checks them.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace planter::kube {

struct HttpRequest {
  std::string method = "GET";
  std::string path;  // below the server URL, query included: "/api/v1/namespaces?limit=500"
  std::string accept = "application/json";
  std::string content_type;
  std::string body;
  bool idempotent = true;  // may be sent again after a failure (transport.h says when)
};

struct HttpResponse {
  int status = 0;
  std::string content_type;
  std::string body;
  std::vector<std::string> warnings;  // Warning headers
  int attempts = 1;
  std::chrono::microseconds on_wire{0};  // the last attempt's, from curl (to the headers, for
                                         // a stream)
};

}  // namespace planter::kube
