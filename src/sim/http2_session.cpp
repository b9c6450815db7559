// HTTP/2 sessions of `planter sim` (server_front.h).
#include <nghttp2/nghttp2.h>

#include <array>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/request_target.h"
#include "sim/server_front.h"

namespace planter::sim {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;

namespace {

// HTTP/2 (RFC 9113) over TLS, chosen by ALPN, with nghttp2 doing the framing: many requests on
// one connection, each stream an Exchange of its own; watches stream DATA frames.
class H2Session : public std::enable_shared_from_this<H2Session> {
 public:
  using Stream = TlsStream;

  H2Session(Front& front, Stream stream, Identity cert_user)
      : front_(front),
        stream_(std::move(stream)),
        cert_user_(std::move(cert_user)),
        idle_(stream_.get_executor()) {}

  ~H2Session() {
    for (auto& [id, st] : streams_) st->stop_watch();
    if (session_) nghttp2_session_del(session_);
  }

  void start() {
    nghttp2_session_callbacks* cb;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, &H2Session::on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, &H2Session::on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, &H2Session::on_data);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, &H2Session::on_frame);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, &H2Session::on_close);
    // curl (7.88) follows every finished stream with a RST_STREAM(STREAM_CLOSED); a Go server
    // ignores those, but nghttp2's rapid-reset guard counts them and would end the connection
    // after 1,000 streams.
    nghttp2_option* opt;
    nghttp2_option_new(&opt);
    nghttp2_option_set_stream_reset_rate_limit(opt, 1u << 30, 1u << 30);
    nghttp2_session_server_new2(&session_, cb, this, opt);
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cb);
    nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 1000},
                                         {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20}};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, 2);
    // The connection's own window, so uploads of many streams are not held back.
    nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, 16 << 20);
    flush();
    read();
    arm_idle();
  }

 private:
  // One stream: its request as it arrives, then its response (whole, or a watch's frames).
  struct H2Stream : Exchange {
    std::weak_ptr<H2Session> session;
    int32_t id = 0;
    std::string method, target, content_type, accept, user_agent, authorization, impersonate;
    std::vector<std::string> impersonate_groups;
    std::string body;
    std::string out;  // response bytes not yet framed
    size_t out_off = 0;
    bool eof = false;
    bool closed = false;
    bool too_large = false;  // the body passed kBodyLimit: answered 413, never handled
    std::shared_ptr<Cluster> watch_cluster;
    uint64_t watch_id = 0;

    void respond(Response r) override {
      if (auto s = session.lock()) s->respond(*this, std::move(r));
    }
    void start_watch(const std::shared_ptr<Cluster>& cluster, const Request& req) override {
      if (auto s = session.lock()) s->start_watch(*this, cluster, req);
    }
    void stop_watch() {
      if (watch_cluster && watch_id) watch_cluster->cancel_watch(watch_id);
      watch_id = 0;
      watch_cluster.reset();
    }
  };

  class Sink : public WatchSink {
   public:
    Sink(std::weak_ptr<H2Session> s, std::weak_ptr<H2Stream> st)
        : session_(std::move(s)), stream_(std::move(st)) {}
    void send(std::string frame) override {
      auto s = session_.lock();
      auto st = stream_.lock();
      if (!s || !st || st->closed) return;
      if (st->out.size() - st->out_off > (64u << 20)) {  // a watcher this far behind is cut off
        nghttp2_submit_rst_stream(s->session_, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_CANCEL);
        return s->flush();
      }
      st->out += frame;
      nghttp2_session_resume_data(s->session_, st->id);
      s->flush();
    }
    void finish() override {
      auto s = session_.lock();
      auto st = stream_.lock();
      if (!s || !st || st->closed) return;
      st->eof = true;
      nghttp2_session_resume_data(s->session_, st->id);
      s->flush();
    }

   private:
    std::weak_ptr<H2Session> session_;
    std::weak_ptr<H2Stream> stream_;
  };

  static H2Session* self(void* user) { return static_cast<H2Session*>(user); }

  H2Stream* find(int32_t id) {
    auto it = streams_.find(id);
    return it == streams_.end() ? nullptr : it->second.get();
  }

  static int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    auto st = std::make_shared<H2Stream>();
    st->session = self(user)->weak_from_this();
    st->id = frame->hd.stream_id;
    self(user)->streams_.emplace(st->id, std::move(st));
    self(user)->idle_.cancel();
    return 0;
  }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                       size_t namelen, const uint8_t* value, size_t valuelen, uint8_t, void* user) {
    H2Stream* st = self(user)->find(frame->hd.stream_id);
    if (!st) return 0;
    std::string_view n(reinterpret_cast<const char*>(name), namelen);
    std::string v(reinterpret_cast<const char*>(value), valuelen);
    if (n == ":method")
      st->method = std::move(v);
    else if (n == ":path")
      st->target = std::move(v);
    else if (n == "content-type")
      st->content_type = std::move(v);
    else if (n == "accept")
      st->accept = std::move(v);
    else if (n == "user-agent")
      st->user_agent = std::move(v);
    else if (n == "authorization")
      st->authorization = std::move(v);
    else if (n == "impersonate-user")
      st->impersonate = std::move(v);
    else if (n == "impersonate-group")
      st->impersonate_groups.push_back(std::move(v));
    return 0;
  }

  static int on_data(nghttp2_session*, uint8_t, int32_t id, const uint8_t* data, size_t len,
                     void* user) {
    H2Stream* st = self(user)->find(id);
    if (!st) return 0;
    if (st->too_large || st->body.size() + len > kBodyLimit) {
      st->too_large = true;
      st->body.clear();
      return 0;
    }
    st->body.append(reinterpret_cast<const char*>(data), len);
    return 0;
  }

  static int on_frame(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
      auto it = self(user)->streams_.find(frame->hd.stream_id);
      if (it != self(user)->streams_.end()) self(user)->dispatch(it->second);
    }
    return 0;
  }

  static int on_close(nghttp2_session*, int32_t id, uint32_t, void* user) {
    auto it = self(user)->streams_.find(id);
    if (it == self(user)->streams_.end()) return 0;
    it->second->closed = true;
    it->second->stop_watch();
    self(user)->streams_.erase(it);
    if (self(user)->streams_.empty()) self(user)->arm_idle();
    return 0;
  }

  // A connection without a stream for ServerOptions::idle_timeout is told GOAWAY and closed, as
  // Go's HTTP/2 server does with its IdleTimeout: idle clients must not hold descriptors forever.
  void arm_idle() {
    if (closed_) return;
    idle_.expires_after(front_.idle_timeout());
    idle_.async_wait([weak = weak_from_this()](beast::error_code ec) {
      auto self = weak.lock();
      if (ec || !self || self->closed_ || !self->streams_.empty()) return;
      nghttp2_session_terminate_session(self->session_, NGHTTP2_NO_ERROR);
      self->flush();
    });
  }

  static ssize_t read_out(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                          nghttp2_data_source* source, void*) {
    auto* st = static_cast<H2Stream*>(source->ptr);
    size_t n = std::min(length, st->out.size() - st->out_off);
    std::memcpy(buf, st->out.data() + st->out_off, n);
    st->out_off += n;
    if (st->out_off == st->out.size()) {
      st->out.clear();
      st->out_off = 0;
      if (st->eof)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
      else if (n == 0)
        return NGHTTP2_ERR_DEFERRED;
    }
    return static_cast<ssize_t>(n);
  }

  void dispatch(const std::shared_ptr<H2Stream>& st) {
    if (st->too_large) return st->respond(too_large());
    Request req;
    req.method = st->method;
    std::string path = split_request_target(st->target, req);
    req.content_type = st->content_type;
    req.accept = st->accept;
    req.user_agent = st->user_agent;
    req.body = std::move(st->body);
    front_.process(st, std::move(req), std::move(path), st->authorization, cert_user_,
                   st->impersonate, st->impersonate_groups);
  }

  void submit(H2Stream& st, int status, const std::string& content_type,
              const std::vector<std::pair<std::string, std::string>>& headers) {
    std::string code = std::to_string(status);
    std::vector<std::pair<std::string, std::string>> all{
        {":status", code}, {"content-type", content_type}, {"cache-control", "no-cache, private"}};
    for (const auto& [k, v] : headers) {
      std::string name = k;
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      all.emplace_back(std::move(name), v);
    }
    std::vector<nghttp2_nv> nva;
    for (auto& [k, v] : all)
      nva.push_back({reinterpret_cast<uint8_t*>(k.data()), reinterpret_cast<uint8_t*>(v.data()),
                     k.size(), v.size(), NGHTTP2_NV_FLAG_NONE});
    nghttp2_data_provider provider;
    provider.source.ptr = &st;
    provider.read_callback = &H2Session::read_out;
    nghttp2_submit_response(session_, st.id, nva.data(), nva.size(), &provider);
  }

  void respond(H2Stream& st, Response r) {
    if (st.closed) return;
    st.out = std::move(r.body);
    st.out_off = 0;
    st.eof = true;
    submit(st, r.status, r.content_type, r.headers);
    flush();
  }

  void start_watch(H2Stream& st, const std::shared_ptr<Cluster>& cluster, const Request& req) {
    if (st.closed) return;
    auto it = streams_.find(st.id);
    if (it == streams_.end()) return;
    auto sink = std::make_shared<Sink>(weak_from_this(), it->second);
    uint64_t id = 0;
    // Frames the watch sends as it starts wait in st.out until the headers go out.
    auto err = cluster->watch(req, sink, &id);
    if (err) {
      st.out.clear();
      return respond(st, std::move(*err));
    }
    st.watch_cluster = cluster;
    st.watch_id = id;
    submit(st, 200, "application/json", {});
    flush();
  }

  void read() {
    stream_.async_read_some(
        net::buffer(rbuf_), [self = shared_from_this()](beast::error_code ec, size_t n) {
          if (ec) return self->close();
          self->in_recv_ = true;
          ssize_t rv = nghttp2_session_mem_recv(
              self->session_, reinterpret_cast<const uint8_t*>(self->rbuf_.data()), n);
          self->in_recv_ = false;
          if (rv < 0) return self->close();
          self->flush();
          if (!self->closed_) self->read();
        });
  }

  // Sends what nghttp2 has framed; one write at a time.
  void flush() {
    if (writing_ || in_recv_ || closed_) return;
    wbuf_.clear();
    while (wbuf_.size() < (256u << 10)) {
      const uint8_t* data = nullptr;
      ssize_t n = nghttp2_session_mem_send(session_, &data);
      if (n < 0) return close();
      if (n == 0) break;
      wbuf_.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
    }
    if (wbuf_.empty()) {
      if (!nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_)) close();
      return;
    }
    writing_ = true;
    net::async_write(stream_, net::buffer(wbuf_),
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       self->writing_ = false;
                       if (ec) return self->close();
                       self->flush();
                     });
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    idle_.cancel();
    for (auto& [id, st] : streams_) {
      st->closed = true;
      st->stop_watch();
    }
    beast::error_code ec;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ec);
    beast::get_lowest_layer(stream_).close();
  }

  Front& front_;
  Stream stream_;
  Identity cert_user_;
  net::steady_timer idle_;
  nghttp2_session* session_ = nullptr;
  std::map<int32_t, std::shared_ptr<H2Stream>> streams_;
  std::array<char, 16384> rbuf_;
  std::string wbuf_;
  bool writing_ = false;
  bool in_recv_ = false;
  bool closed_ = false;
};

}  // namespace

void serve_http2(Front& front, TlsStream stream, Identity cert_user) {
  std::make_shared<H2Session>(front, std::move(stream), std::move(cert_user))->start();
}

}  // namespace planter::sim
