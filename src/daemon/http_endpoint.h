// A tiny HTTP/1.1 server for the operator's /metrics, /healthz and /readyz and for the live view
// (Boost.Beast, kept in the .cpp). One thread per endpoint, every connection served on it
// asynchronously: plenty for a scraper, the kubelet's probes and a few browsers.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "model/result.h"

namespace planter::daemon {

struct HttpAnswer {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // Set: the answer is a stream of server-sent events (text/event-stream) that lasts until the
  // client goes or the endpoint stops: `body` is sent first as it is, then, every
  // kEventPoll, what `next` returns (an event's text, "data: ...\n\n"), when it returns any;
  // an empty text ends the stream. Called on the endpoint's thread, one connection at a time.
  std::function<std::optional<std::string>()> next;
};

inline constexpr std::chrono::milliseconds kEventPoll{200};
inline constexpr size_t kMaxEventStreams = 32;  // more are answered 503

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
