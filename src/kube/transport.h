// HTTP to one cluster, with libcurl, connections reused, HTTP/2 over TLS (ALPN) with many streams
// on one connection, HTTP/1.1 otherwise. A few workers (a thread and a multi handle each, one per
// core up to four) drive every transport of the process; a worker has at most 256 requests in
// flight. A transport with exec credentials has a worker of its own (a plugin runs on it).
//
// Every request passes a client-side rate limiter (QPS and burst) and a bound on requests in
// flight; long-running streams (watches) pass the limiter but do not hold a slot. Retries:
//  - 429, or a 5xx with Retry-After: the server did nothing; wait as it says, any verb.
//  - a refused connection: nothing was sent; back off, any verb.
//  - another 5xx, a timeout, a reset or broken connection: back off (exponential, jittered) and
//    send again only if the request is idempotent (a GET, an apply, an update with a
//    resourceVersion, a delete); a create is not, so its error goes back to the caller.
//  - 401: once more with fresh credentials when they can change (exec plugin, token file).
// All up to `max_attempts`.
//
// Threads: send() and stream() may be called from any thread; callbacks run on the transport's
// worker thread and must not block (a synchronous call from a callback would deadlock; Client
// checks). Destroying a Transport drops the callbacks of what is still outstanding uncalled; it
// waits for the worker to let go, so it must not happen on a worker thread (in a callback).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kube/api_error.h"
#include "kube/http_message.h"
#include "kube/kubeconfig.h"

namespace planter::kube {

struct TransportOptions {
  double qps = 50;  // per cluster; <= 0: no limit
  int burst = 100;
  int max_in_flight = 64;
  bool http2 = true;                          // offer h2 in the TLS handshake; false: HTTP/1.1 only
  std::chrono::milliseconds timeout{60'000};  // a whole request (not a stream)
  std::chrono::milliseconds connect_timeout{10'000};
  int max_attempts = 8;
  std::chrono::milliseconds backoff_base{50};
  std::chrono::milliseconds backoff_cap{5'000};
  // A client that cannot write: any request but a GET or HEAD that is not a dry run
  // (`dryRun=All`) fails before it is sent, retries included (reason "ReadOnly"). What `planter
  // diff`, the preflight and the drift check use, so that a read-only step is unable to write,
  // not merely unlikely to.
  bool read_only = false;
  std::string user_agent;        // "planter/VERSION (linux/amd64)" when empty
  std::string impersonate_user;  // Impersonate-User (a kubeconfig's `as` when empty)
  std::vector<std::string> impersonate_groups;
  std::function<uint64_t()> random;  // jitter; a seeded generator when empty
  // Hears every answer, retries included, on the transport's thread: `name` below, the HTTP
  // method (WATCH for a stream), the status (0 when no response came) and how long it took in
  // seconds (for a stream, until its response began). What metrics count.
  std::function<void(std::string_view cluster, std::string_view method, int status, double seconds)>
      observe;
  std::string name;  // the cluster's name, for observe
};

struct TransportStats {
  uint64_t requests = 0;  // sent, retries included
  uint64_t retries = 0;
  uint64_t connections = 0;  // new connections opened
  uint64_t http2_responses = 0;
  uint64_t http1_responses = 0;
};

class Transport {
 public:
  using Done = std::function<void(ApiResult<HttpResponse>)>;
  using Data = std::function<bool(std::string_view)>;  // false: stop the stream
  using StreamId = uint64_t;

  // An error when the configuration cannot work (a malformed server URL).
  static Result<std::unique_ptr<Transport>> create(RestConfig config, TransportOptions options);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Sends `req`; `done` runs once, with the response when it is 2xx, else the ApiError.
  void send(HttpRequest req, Done done);

  // A long-running GET whose body arrives in pieces. After a 2xx, `on_data` gets each piece;
  // `done` runs once at the end: ok when the server or on_data ended it, an error otherwise (the
  // status before the first byte, or a broken connection). Never retried: the caller resumes.
  StreamId stream(HttpRequest req, Data on_data, Done done);
  // Ends a stream; its `done` runs with reason "Cancelled". Unknown ids are ignored.
  void cancel(StreamId id);

  // Runs `fn` on the transport's thread, after `delay`.
  void post(std::function<void()> fn, std::chrono::milliseconds delay = {});
  bool on_transport_thread() const;

  const RestConfig& config() const;
  TransportStats stats() const;
  // A number to spread waits with (jitter): from options.random, else the transport's seeded
  // generator. Any thread.
  uint64_t jitter();

  struct Impl;

 private:
  explicit Transport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// For a process that must stop whatever its API servers do (`planter operator` and `planter
// scheduler` on SIGTERM): every transport that exists now ends what it has in flight, queued or
// waiting to be retried with reason "Cancelled" at once, and anything it is given later as soon
// as it is sent. Transports made afterwards are not affected (a Lease is released through one).
void abandon_requests();

}  // namespace planter::kube
