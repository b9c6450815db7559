// A tiny HTTP/1.1 server for the operator's /metrics, /healthz and /readyz (Boost.Beast, kept in
// the .cpp). One thread per endpoint; requests are answered one at a time, which is plenty for a
// scraper and the kubelet's probes.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "model/result.h"

namespace planter::daemon {

struct HttpAnswer {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class HttpEndpoint {
 public:
  using Handler = std::function<HttpAnswer(const std::string& path)>;
  // `address`: "[HOST]:PORT" (":8080" listens on every address; port 0 picks a free one).
  static Result<std::unique_ptr<HttpEndpoint>> start(const std::string& address, Handler handler);
  ~HttpEndpoint();
  uint16_t port() const;

  struct Impl;

 private:
  explicit HttpEndpoint(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::daemon
