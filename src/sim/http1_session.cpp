// HTTP/1.1 sessions of `planter sim` (server_front.h), plain or over TLS, and the TLS handshake
// that hands a connection to HTTP/2 when ALPN chose h2.
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/request_target.h"
#include "sim/server_front.h"

namespace planter::sim {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

namespace {

// A TLS handshake that has not finished in this long is closed (as are connections idle for
// Front::idle_timeout): idle clients must not hold descriptors forever.
constexpr std::chrono::seconds kHandshakeTimeout{10};
// A watcher this far behind is cut off, as a real server drops slow watchers.
constexpr size_t kMaxQueuedFrames = 100000;

// The user a verified client certificate names: its subject's CN, its O entries the groups.
Identity peer_user(SSL* ssl) {
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (!cert) return {};
  Identity id;
  if (SSL_get_verify_result(ssl) == X509_V_OK) {
    X509_NAME* subject = X509_get_subject_name(cert);
    char cn[256] = {0};
    if (X509_NAME_get_text_by_NID(subject, NID_commonName, cn, sizeof cn) > 0) id.user = cn;
    for (int i = X509_NAME_get_index_by_NID(subject, NID_organizationName, -1); i >= 0;
         i = X509_NAME_get_index_by_NID(subject, NID_organizationName, i)) {
      ASN1_STRING* value = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i));
      id.groups.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(value)),
                             static_cast<size_t>(ASN1_STRING_length(value)));
    }
  }
  X509_free(cert);
  return id;
}

template <class Stream>
class Session : public Exchange, public std::enable_shared_from_this<Session<Stream>> {
 public:
  Session(Front& front, Stream stream) : front_(front), stream_(std::move(stream)) {}

  void start() {
    if constexpr (std::is_same_v<Stream, TlsStream>) {
      beast::get_lowest_layer(stream_).expires_after(kHandshakeTimeout);
      stream_.async_handshake(
          ssl::stream_base::server, [self = this->shared_from_this()](beast::error_code ec) {
            if (ec) return;
            beast::get_lowest_layer(self->stream_).expires_never();
            SSL* ssl = self->stream_.native_handle();
            self->cert_user_ = peer_user(ssl);
            const unsigned char* proto = nullptr;
            unsigned int len = 0;
            SSL_get0_alpn_selected(ssl, &proto, &len);
            if (len == 2 && std::memcmp(proto, "h2", 2) == 0) {
              return serve_http2(self->front_, std::move(self->stream_), self->cert_user_);
            }
            self->read();
          });
    } else {
      read();
    }
  }

  ~Session() {
    if (watch_cluster_ && watch_id_) watch_cluster_->cancel_watch(watch_id_);
  }

  // Frames of a running watch go through here.
  class Sink : public WatchSink {
   public:
    explicit Sink(std::weak_ptr<Session> s) : session_(std::move(s)) {}
    void send(std::string frame) override {
      if (auto s = session_.lock()) s->queue_chunk(std::move(frame));
    }
    void finish() override {
      if (auto s = session_.lock()) s->finish_watch();
    }

   private:
    std::weak_ptr<Session> session_;
  };

 private:
  void read() {
    parser_.emplace();
    parser_->body_limit(kBodyLimit);
    beast::get_lowest_layer(stream_).expires_after(front_.idle_timeout());
    http::async_read(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](beast::error_code ec, size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    beast::get_lowest_layer(stream_).expires_never();  // the answer (or a watch) may take long
    if (ec == http::error::body_limit) {
      keep_alive_ = false;
      draining_ = true;  // read what the client still sends, so it sees the answer
      return respond(too_large());
    }
    // A request that is not HTTP gets kube-apiserver's (Go's) answer, not a dropped connection.
    if (ec && ec.category() == http::make_error_code(http::error::bad_method).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      keep_alive_ = false;
      Response bad;
      bad.status = 400;
      bad.content_type = "text/plain; charset=utf-8";
      bad.body = "400 Bad Request";
      return respond(std::move(bad));
    }
    if (ec) return close();
    auto& msg = parser_->get();
    keep_alive_ = msg.keep_alive();
    Request req;
    req.method = std::string(msg.method_string());
    std::string path = split_request_target(msg.target(), req);
    req.content_type = std::string(msg[http::field::content_type]);
    req.accept = std::string(msg[http::field::accept]);
    req.user_agent = std::string(msg[http::field::user_agent]);
    req.body = std::move(msg.body());
    std::vector<std::string> groups;
    for (auto [it, end] = msg.equal_range("Impersonate-Group"); it != end; ++it)
      groups.emplace_back(it->value());
    front_.process(this->shared_from_this(), std::move(req), std::move(path),
                   msg[http::field::authorization], cert_user_,
                   std::string(msg["Impersonate-User"]), groups);
  }

  void respond(Response r) override {
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(r.status), 11);
    res->set(http::field::content_type, r.content_type);
    res->set(http::field::cache_control, "no-cache, private");
    for (auto& [k, v] : r.headers) res->insert(k, v);
    res->keep_alive(keep_alive_);
    res->body() = std::move(r.body);
    res->prepare_payload();
    http::async_write(stream_, *res,
                      [self = this->shared_from_this(), res](beast::error_code ec, size_t) {
                        if (!ec && self->draining_) return self->drain();
                        if (ec || !self->keep_alive_) return self->close();
                        self->read();
                      });
  }

  void start_watch(const std::shared_ptr<Cluster>& cluster, const Request& req) override {
    auto sink = std::make_shared<Sink>(this->weak_from_this());
    // Frames produced while the watch starts queue up behind the header.
    pending_.push_back(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-cache, "
        "private\r\nTransfer-Encoding: chunked\r\n\r\n");
    writing_ = true;  // hold writes until we know whether the watch started
    uint64_t id = 0;
    auto err = cluster->watch(req, sink, &id);
    writing_ = false;
    if (err) {
      pending_.clear();
      finishing_ = false;
      return respond(std::move(*err));
    }
    watch_cluster_ = cluster;
    watch_id_ = id;
    write_next();
    // Notice a client that goes away: it sends nothing more on a watch connection.
    stream_.async_read_some(net::buffer(probe_), [self = this->shared_from_this()](
                                                     beast::error_code, size_t) { self->close(); });
  }

  void queue_chunk(std::string frame) {
    if (closed_) return;
    if (pending_.size() > kMaxQueuedFrames) return close();
    char head[20];
    int n = std::snprintf(head, sizeof head, "%zx\r\n", frame.size());
    frame.insert(0, head, static_cast<size_t>(n));
    frame += "\r\n";
    pending_.push_back(std::move(frame));
    if (!writing_) write_next();
  }

  void finish_watch() {
    if (closed_ || finishing_) return;
    finishing_ = true;
    pending_.push_back("0\r\n\r\n");
    if (!writing_) write_next();
  }

  void write_next() {
    if (closed_) return;
    if (pending_.empty()) {
      if (finishing_) close();
      return;
    }
    writing_ = true;
    net::async_write(stream_, net::buffer(pending_.front()),
                     [self = this->shared_from_this()](beast::error_code ec, size_t) {
                       self->writing_ = false;
                       if (ec) return self->close();
                       self->pending_.pop_front();
                       self->write_next();
                     });
  }

  // After a 413: the rest of the body is read and dropped (for at most 10 s) before the
  // connection closes; closing at once would reset it under a client still sending, which then
  // never reads the answer.
  void drain() {
    if (!draining_started_) {
      draining_started_ = true;
      beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(10));
      drain_buffer_.resize(16384);
    }
    stream_.async_read_some(net::buffer(drain_buffer_),
                            [self = this->shared_from_this()](beast::error_code ec, size_t) {
                              if (ec) return self->close();
                              self->drain();
                            });
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    if (watch_cluster_ && watch_id_) {
      watch_cluster_->cancel_watch(watch_id_);
      watch_id_ = 0;
    }
    beast::error_code ec;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ec);
    beast::get_lowest_layer(stream_).close();
  }

  Front& front_;
  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = true;
  bool writing_ = false;
  bool finishing_ = false;
  bool closed_ = false;
  std::deque<std::string> pending_;
  std::shared_ptr<Cluster> watch_cluster_;  // kept alive while its watch streams
  uint64_t watch_id_ = 0;
  Identity cert_user_;  // of a verified client certificate: CN and O
  char probe_[64];
  bool draining_ = false;
  bool draining_started_ = false;
  std::string drain_buffer_;
};

}  // namespace

void serve_http(Front& front, tcp::socket socket) {
  std::make_shared<Session<beast::tcp_stream>>(front, beast::tcp_stream(std::move(socket)))
      ->start();
}

void serve_https(Front& front, tcp::socket socket, ssl::context& tls) {
  std::make_shared<Session<TlsStream>>(front, TlsStream(beast::tcp_stream(std::move(socket)), tls))
      ->start();
}

}  // namespace planter::sim
