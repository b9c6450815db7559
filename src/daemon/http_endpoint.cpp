#include "daemon/http_endpoint.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <thread>

namespace planter::daemon {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

struct HttpEndpoint::Impl {
  net::io_context io{1};
  tcp::acceptor acceptor{io};
  net::steady_timer pause{io};
  Handler handler;
  std::thread thread;
  size_t streams = 0;  // event streams open

  // Accepts for as long as the endpoint lives. A failed accept (EMFILE or ENFILE: out of file
  // descriptors, while idle clients hold them; ECONNABORTED) does not end it: it waits a moment
  // for connections to close (each lasts 5 s at most, see serve) and accepts again, so a burst
  // of connections never leaves /healthz or /metrics unanswered for good.
  void accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
      if (ec) {
        pause.expires_after(
            std::chrono::milliseconds(ec == net::error::connection_aborted ? 0 : 100));
        pause.async_wait([this](beast::error_code waited) {
          if (!waited) accept();
        });
        return;
      }
      serve(std::move(socket));
      accept();
    });
  }

  // One request per connection is all probes and scrapers need; a slow client cannot hold the
  // endpoint for more than a few seconds.
  void serve(tcp::socket socket) {
    auto stream = std::make_shared<beast::tcp_stream>(std::move(socket));
    auto buffer = std::make_shared<beast::flat_buffer>();
    auto req = std::make_shared<http::request<http::string_body>>();
    stream->expires_after(std::chrono::seconds(5));
    http::async_read(*stream, *buffer, *req,
                     [this, stream, buffer, req](beast::error_code ec, size_t) {
                       if (ec) return;
                       std::string target(req->target());
                       std::string path = target.substr(0, target.find('?'));
                       HttpAnswer a = req->method() == http::verb::get
                                          ? handler(path)
                                          : HttpAnswer{405, "text/plain", "method not allowed\n"};
                       if (a.next) {
                         stream_events(stream, std::move(a));
                         return;
                       }
                       auto res = std::make_shared<http::response<http::string_body>>(
                           static_cast<http::status>(a.status), req->version());
                       res->set(http::field::content_type, a.content_type);
                       res->body() = std::move(a.body);
                       res->keep_alive(false);
                       res->prepare_payload();
                       http::async_write(*stream, *res, [stream, res](beast::error_code, size_t) {
                         beast::error_code ignored;
                         stream->socket().shutdown(tcp::socket::shutdown_both, ignored);
                       });
                     });
  }

  // An event stream: the headers and the answer's body, then whatever `next` has, every
  // kEventPoll, until a write fails (the client went) or the endpoint stops.
  // One client's event stream: its connection, where its events come from, the text being
  // written, the timer between polls, and how many polls in a row found nothing.
  struct EventStream {
    beast::tcp_stream stream;
    std::function<std::optional<std::string>()> next;
    std::string text;
    net::steady_timer timer;
    int idle = 0;
  };

  void stream_events(std::shared_ptr<beast::tcp_stream> stream, HttpAnswer a) {
    if (streams >= kMaxEventStreams) {
      auto text = std::make_shared<std::string>(
          "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: "
          "close\r\nContent-Length: 20\r\n\r\ntoo many listeners\r\n");
      net::async_write(stream->socket(), net::buffer(*text),
                       [stream, text](beast::error_code, size_t) {});
      return;
    }
    ++streams;
    stream->expires_never();
    auto es = std::make_shared<EventStream>(EventStream{
        std::move(*stream), std::move(a.next),
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
        "Connection: close\r\n\r\n" +
            a.body,
        net::steady_timer(io)});
    write_events(es);
  }

  void write_events(std::shared_ptr<EventStream> es) {
    net::async_write(es->stream.socket(), net::buffer(es->text),
                     [this, es](beast::error_code ec, size_t) {
                       if (ec) {
                         --streams;
                         return;
                       }
                       wait_for_events(es);
                     });
  }

  void wait_for_events(std::shared_ptr<EventStream> es) {
    es->timer.expires_after(kEventPoll);
    es->timer.async_wait([this, es](beast::error_code ec) {
      if (ec) {
        --streams;
        return;
      }
      std::optional<std::string> event = es->next();
      if (event && event->empty()) {  // the end: the client sees the connection close
        --streams;
        beast::error_code ignored;
        es->stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
        return;
      }
      // A comment after 50 quiet polls finds out whether the client is still there.
      es->idle = event ? 0 : es->idle + 1;
      if (es->idle == 50) {
        event = ": still here\n\n";
        es->idle = 0;
      }
      if (!event) return wait_for_events(es);
      es->text = std::move(*event);
      write_events(es);
    });
  }
};

HttpEndpoint::HttpEndpoint(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpEndpoint::~HttpEndpoint() {
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

uint16_t HttpEndpoint::port() const {
  return impl_->acceptor.local_endpoint().port();
}

Result<std::unique_ptr<HttpEndpoint>> HttpEndpoint::start(const std::string& address,
                                                          Handler handler) {
  auto impl = std::make_unique<Impl>();
  impl->handler = std::move(handler);
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return Error{"address \"" + address + "\": expected [HOST]:PORT"};
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  int port = 0;
  try {
    port = std::stoi(address.substr(colon + 1));
  } catch (...) {
    port = -1;
  }
  if (port < 0 || port > 65535) return Error{"address \"" + address + "\": bad port"};
  beast::error_code ec;
  auto ip = net::ip::make_address(host, ec);
  if (ec) return Error{"address \"" + address + "\": " + ec.message()};
  tcp::endpoint endpoint(ip, static_cast<uint16_t>(port));
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return Error{"cannot listen on " + address + ": " + ec.message()};
  impl->accept();
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->io.run(); });
  return std::unique_ptr<HttpEndpoint>(new HttpEndpoint(std::move(impl)));
}

}  // namespace planter::daemon
