// Sustained create throughput of `planter sim` and its latency, with 64 concurrent clients.
//
// The sim runs in this process on its own event-loop thread, exactly as `planter sim` runs it;
// the clients are 64 keep-alive connections driven by one Boost.Beast event loop on another
// thread, each creating ConfigMaps back to back for a fixed time. Prints creates/s and
// p50/p99/max latency per scenario: HTTP, HTTPS with a bearer token, and HTTP with
// --write-latency 2. Numbers only; nothing passes or fails on time.
#include <algorithm>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "sim/server.h"

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

struct Totals {
  std::vector<double> latencies_ms;
  size_t errors = 0;
};

template <class Stream>
class Client : public std::enable_shared_from_this<Client<Stream>> {
 public:
  Client(Stream stream, int id, std::string token, Clock::time_point until, Totals& totals)
      : stream_(std::move(stream)),
        id_(id),
        token_(std::move(token)),
        until_(until),
        totals_(totals) {}

  void start(tcp::endpoint ep) {
    beast::get_lowest_layer(stream_).async_connect(
        ep, [self = this->shared_from_this()](beast::error_code ec) {
          if (ec) return self->fail();
          if constexpr (std::is_same_v<Stream, beast::ssl_stream<beast::tcp_stream>>) {
            self->stream_.async_handshake(ssl::stream_base::client, [self](beast::error_code ec2) {
              if (ec2) return self->fail();
              self->next();
            });
          } else {
            self->next();
          }
        });
  }

 private:
  void fail() { ++totals_.errors; }

  void next() {
    if (Clock::now() >= until_) return;
    req_ = {http::verb::post, "/api/v1/namespaces/bench/configmaps", 11};
    req_.set(http::field::host, "127.0.0.1");
    req_.set(http::field::content_type, "application/json");
    req_.set(http::field::authorization, "Bearer " + token_);
    req_.body() = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm-" +
                  std::to_string(id_) + "-" + std::to_string(n_++) +
                  "\",\"labels\":{\"app\":\"bench\"}},\"data\":{\"key\":\"value\"}}";
    req_.prepare_payload();
    started_ = Clock::now();
    http::async_write(
        stream_, req_, [self = this->shared_from_this()](beast::error_code ec, size_t) {
          if (ec) return self->fail();
          self->res_ = {};
          http::async_read(
              self->stream_, self->buffer_, self->res_, [self](beast::error_code ec2, size_t) {
                if (ec2) return self->fail();
                if (self->res_.result_int() != 201) ++self->totals_.errors;
                self->totals_.latencies_ms.push_back(
                    std::chrono::duration<double, std::milli>(Clock::now() - self->started_)
                        .count());
                self->next();
              });
        });
  }

  Stream stream_;
  int id_;
  std::string token_;
  Clock::time_point until_;
  Totals& totals_;
  int n_ = 0;
  http::request<http::string_body> req_;
  http::response<http::string_body> res_;
  beast::flat_buffer buffer_;
  Clock::time_point started_;
};

// Creates the "bench" namespace with one plain request.
template <class Stream>
void create_namespace(Stream& stream, const std::string& token) {
  http::request<http::string_body> req{http::verb::post, "/api/v1/namespaces", 11};
  req.set(http::field::host, "127.0.0.1");
  req.set(http::field::content_type, "application/json");
  req.set(http::field::authorization, "Bearer " + token);
  req.body() = R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench"}})";
  req.prepare_payload();
  http::write(stream, req);
  beast::flat_buffer buf;
  http::response<http::string_body> res;
  http::read(stream, buf, res);
}

void scenario(const char* name, bool tls, int write_latency_ms, int clients, double seconds) {
  planter::sim::ServerOptions options;
  options.insecure_http = !tls;
  options.fleet.cluster.faults.write_latency = std::chrono::milliseconds(write_latency_ms);
  auto server = planter::sim::Server::create(options);
  if (!server) {
    std::fprintf(stderr, "cannot start the sim: %s\n", server.error().message.c_str());
    return;
  }
  (*server)->start();
  tcp::endpoint ep(net::ip::make_address("127.0.0.1"), (*server)->port());
  std::string token = (*server)->token();
  net::io_context io;
  ssl::context ctx{ssl::context::tls_client};
  ctx.set_verify_mode(ssl::verify_none);
  {
    if (tls) {
      beast::ssl_stream<beast::tcp_stream> s(io, ctx);
      beast::get_lowest_layer(s).connect(ep);
      s.handshake(ssl::stream_base::client);
      create_namespace(s, token);
    } else {
      beast::tcp_stream s(io);
      s.connect(ep);
      create_namespace(s, token);
    }
  }
  Totals totals;
  auto begin = Clock::now();
  auto until =
      begin + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (int i = 0; i < clients; ++i) {
    if (tls) {
      std::make_shared<Client<beast::ssl_stream<beast::tcp_stream>>>(
          beast::ssl_stream<beast::tcp_stream>(io, ctx), i, token, until, totals)
          ->start(ep);
    } else {
      std::make_shared<Client<beast::tcp_stream>>(beast::tcp_stream(io), i, token, until, totals)
          ->start(ep);
    }
  }
  io.run();
  double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
  auto& l = totals.latencies_ms;
  std::sort(l.begin(), l.end());
  auto pct = [&](double p) {
    return l.empty() ? 0.0 : l[std::min(l.size() - 1, static_cast<size_t>(p * l.size()))];
  };
  std::printf(
      "%-34s %3d clients  %8zu creates  %9.0f creates/s  p50 %6.2f ms  p99 %6.2f ms  max %7.2f ms  "
      "errors %zu\n",
      name, clients, l.size(), l.size() / elapsed, pct(0.50), pct(0.99), l.empty() ? 0.0 : l.back(),
      totals.errors);
  (*server)->stop();
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
  std::printf("planter sim: sustained ConfigMap creates for %.1f s per scenario\n", seconds);
  scenario("http", false, 0, 64, seconds);
  scenario("https + bearer token", true, 0, 64, seconds);
  scenario("http, --write-latency 2", false, 2, 64, seconds);
  scenario("https + token, --write-latency 2", true, 2, 64, seconds);
  return 0;
}
