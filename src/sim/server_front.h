// Inside `planter sim`'s HTTP(S) front (server.h), between the listener and the protocols: what
// a connection's session hands a request to (Front, server.cpp), what a request answers through
// (Exchange), and the sessions themselves, one file per protocol (http1_session.cpp,
// http2_session.cpp). Private to those three files: Boost.Beast stays out of everything else.
//
// Threads: all of it runs on the server's one event-loop thread.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/api.h"
#include "sim/cluster.h"

namespace planter::sim {

// kube-apiserver's limit on a request body (--max-request-body-bytes): 3 MiB, answered with 413.
constexpr size_t kBodyLimit = 3 * 1024 * 1024;
Response too_large();

// Who a request comes from, once authenticated.
struct Identity {
  std::string user;
  std::vector<std::string> groups;
};

// One request on its way back to its client, over HTTP/1.1 or HTTP/2.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual void respond(Response r) = 0;
  virtual void start_watch(const std::shared_ptr<Cluster>& cluster, const Request& req) = 0;
};

// What every request goes through, whatever its protocol: authentication (the header, or the
// client certificate's identity), impersonation, routing to its cluster, the cluster's latency
// and injected errors; then the cluster's answer or a watch, through `ex`.
class Front {
 public:
  virtual void process(std::shared_ptr<Exchange> ex, Request req, std::string path,
                       std::string_view authorization, const Identity& cert_user,
                       const std::string& impersonate_user,
                       const std::vector<std::string>& impersonate_groups) = 0;
  // A connection that sends no whole request (HTTP/1.1) or has no stream (HTTP/2) for this long
  // is closed.
  virtual std::chrono::seconds idle_timeout() const = 0;

 protected:
  ~Front() = default;
};

using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

// A new connection on the plain port: HTTP/1.1 (http1_session.cpp).
void serve_http(Front& front, boost::asio::ip::tcp::socket socket);
// A new TLS connection: the handshake, then HTTP/2 when ALPN chose h2, else HTTP/1.1
// (http1_session.cpp).
void serve_https(Front& front, boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& tls);
// HTTP/2 on a connection whose handshake chose h2 (http2_session.cpp).
void serve_http2(Front& front, TlsStream stream, Identity cert_user);

}  // namespace planter::sim
