// The request and response values of the sim's API, independent of HTTP: the server (server.h)
// turns each HTTP request into a Request and writes back the Response; a watch streams frames
// into a WatchSink. Leaves that answer requests (cluster.h, rbac.h) include this, not each
// other.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace planter::sim {

struct Request {
  std::string method;  // GET POST PUT PATCH DELETE
  std::string path;    // below the cluster's prefix, without the query: "/api/v1/namespaces"
  std::map<std::string, std::string> query;
  std::string content_type;
  std::string accept;
  std::string user;                 // authenticated (or impersonated) user, for the audit log
  std::vector<std::string> groups;  // the user's groups (system:authenticated included)
  std::string impersonator;         // who sent the request, when it impersonates `user`
  std::string user_agent;           // the default field manager comes from it
  std::string body;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. Warning
};

// A `Status` response as a kube-apiserver writes it (Failure with reason and message from 400
// up, Success below).
Response api_status(int code, std::string_view reason, std::string message,
                    boost::json::object details = {});

// Where a watch sends its frames (one JSON event per line). `finish` ends the stream.
class WatchSink {
 public:
  virtual ~WatchSink() = default;
  virtual void send(std::string frame) = 0;
  virtual void finish() = 0;
};

}  // namespace planter::sim
