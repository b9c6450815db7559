#include "sim/server.h"

#include <nghttp2/nghttp2.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json/serialize.hpp>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <stop_token>
#include <thread>

#include "model/base64.h"
#include "model/files.h"
#include "model/strings.h"
#include "sim/rbac.h"
#include "sim/state_dir.h"
#include "sim/tls.h"

namespace planter::sim {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace json = boost::json;
using tcp = net::ip::tcp;

namespace {

// kube-apiserver's limit on a request body (--max-request-body-bytes): 3 MiB, answered with 413.
constexpr size_t kBodyLimit = 3 * 1024 * 1024;
// A TLS handshake that has not finished in this long is closed (as are connections idle for
// ServerOptions::idle_timeout): idle clients must not hold descriptors forever.
constexpr std::chrono::seconds kHandshakeTimeout{10};

Response too_large() {
  return api_status(413, "RequestEntityTooLarge",
                    "Request entity too large: limit is " + std::to_string(kBodyLimit));
}
// A watcher this far behind is cut off, as a real server drops slow watchers.
constexpr size_t kMaxQueuedFrames = 100000;

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string url_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string path_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Who a request comes from, once authenticated.
struct Identity {
  std::string user;
  std::vector<std::string> groups;
};

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

// kube-apiserver's CSV files: SECRET,user,uid[,"group1,group2"]; returns secret -> identity.
Result<std::map<std::string, Identity>> read_auth_csv(const std::string& path) {
  std::map<std::string, Identity> out;
  if (path.empty()) return out;
  std::ifstream in(path);
  if (!in) return Error{"cannot read " + path + ": " + std::strerror(errno)};
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    size_t c1 = line.find(',');
    size_t c2 = c1 == std::string::npos ? c1 : line.find(',', c1 + 1);
    if (c1 == std::string::npos || c1 == 0)
      return Error{path + ":" + std::to_string(n) + ": expected SECRET,USER,UID[,\"GROUPS\"]"};
    Identity& id = out[line.substr(0, c1)];
    id.user = line.substr(c1 + 1, c2 == std::string::npos ? c2 : c2 - c1 - 1);
    size_t c3 = c2 == std::string::npos ? c2 : line.find(',', c2 + 1);
    if (c3 != std::string::npos) {
      std::string groups = line.substr(c3 + 1);
      if (groups.size() >= 2 && groups.front() == '"' && groups.back() == '"')
        groups = groups.substr(1, groups.size() - 2);
      for (std::string_view g : split(groups, ','))
        if (!g.empty()) id.groups.emplace_back(g);
    }
  }
  return out;
}

std::string random_token(std::mt19937_64& rng) {
  static const char* alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string t;
  for (int i = 0; i < 40; ++i) t += alphabet[rng() % 36];
  return t;
}

// Parses "/api/v1/pods?labelSelector=a%3Db" into the decoded path and the query.
std::string parse_target(std::string_view target, Request& req) {
  size_t q = target.find('?');
  std::string path = path_decode(target.substr(0, q));
  if (q != std::string_view::npos) {
    std::string_view qs = target.substr(q + 1);
    while (!qs.empty()) {
      size_t amp = qs.find('&');
      std::string_view pair = qs.substr(0, amp);
      size_t eq = pair.find('=');
      std::string key = url_decode(pair.substr(0, eq));
      std::string value = eq == std::string_view::npos ? "" : url_decode(pair.substr(eq + 1));
      if (!key.empty()) req.query[key] = value;
      if (amp == std::string_view::npos) break;
      qs.remove_prefix(amp + 1);
    }
  }
  return path;
}

// One request on its way back to its client, over HTTP/1.1 or HTTP/2.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual void respond(Response r) = 0;
  virtual void start_watch(const std::shared_ptr<Cluster>& cluster, const Request& req) = 0;
};

}  // namespace

struct Server::Impl {
  ServerOptions options;
  net::io_context io{1};
  tcp::acceptor acceptor{io};
  ssl::context tls{ssl::context::tls_server};
  ServingCertificates certs;
  std::string token;
  std::map<std::string, Identity> tokens;  // --token-auth-file: token -> who
  // --basic-auth-file: user -> password and who
  std::map<std::string, std::pair<std::string, Identity>> passwords;
  std::mt19937_64 rng{std::random_device{}()};
  AuditLog audit;
  std::unique_ptr<Fleet> fleet;
  std::thread thread;
  uint16_t port = 0;
  // --kubeconfig-out is written whole on each change of the fleet, by a thread of its own that
  // writes the latest state once per burst of changes: 5,000 clusters provisioned one after the
  // other would otherwise cost 5,000 writes of a growing file (quadratic: most of the sim's time).
  std::mutex kubeconfig_mu;
  std::condition_variable_any kubeconfig_cv;
  bool kubeconfig_dirty = false;
  std::jthread kubeconfig_writer;  // declared after `fleet`: it stops before the fleet goes

  Environment environment() {
    Environment env;
    env.now = [] { return std::chrono::system_clock::now(); };
    env.after = [this](std::chrono::milliseconds delay, std::function<void()> fn) {
      auto timer = std::make_shared<net::steady_timer>(io, delay);
      timer->async_wait([timer, fn = std::move(fn)](beast::error_code ec) {
        if (!ec) fn();
      });
    };
    env.random = [this] { return rng(); };
    return env;
  }

  // Splits "/clusters/<name>/rest" into the cluster and the path below it.
  std::shared_ptr<Cluster> route(std::string& path) {
    if (path.starts_with("/clusters/")) {
      std::string_view rest = std::string_view(path).substr(10);
      size_t slash = rest.find('/');
      std::string name(rest.substr(0, slash));
      if (name == "management") return nullptr;
      auto cluster = fleet->find(name);
      if (cluster) path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
      return cluster;
    }
    return fleet->find("management");
  }

  // --kubeconfig-out follows the fleet, written whole and readable by its owner only (it holds
  // the token).
  void write_kubeconfig() {
    if (options.kubeconfig_out.empty()) return;
    (void)write_private_file(options.kubeconfig_out, fleet->kubeconfig());
  }
  void kubeconfig_changed() {
    if (options.kubeconfig_out.empty()) return;
    {
      std::lock_guard lock(kubeconfig_mu);
      kubeconfig_dirty = true;
      if (!kubeconfig_writer.joinable())
        kubeconfig_writer = std::jthread([this](std::stop_token stop) {
          std::unique_lock lock(kubeconfig_mu);
          while (kubeconfig_cv.wait(lock, stop, [this] { return kubeconfig_dirty; })) {
            kubeconfig_dirty = false;
            lock.unlock();
            write_kubeconfig();
            lock.lock();
          }
        });
    }
    kubeconfig_cv.notify_one();
  }

  // The delay --latency and --write-latency add to a request.
  std::chrono::milliseconds delay_of(const Faults& f, bool write) {
    auto d = f.latency;
    if (f.jitter.count() > 0) {
      auto span = static_cast<uint64_t>(2 * f.jitter.count() + 1);
      d += std::chrono::milliseconds(static_cast<int64_t>(rng() % span) - f.jitter.count());
    }
    if (write) d += f.write_latency;
    return std::max(d, std::chrono::milliseconds(0));
  }

  // --error-rate: an error a busy or failing kube-apiserver answers with, at random.
  std::optional<Response> injected_error(const Faults& f) {
    if (f.error_rate <= 0) return std::nullopt;
    if (static_cast<double>(rng() >> 11) * 0x1.0p-53 >= f.error_rate) return std::nullopt;
    // The two a client should come back to after a second, and a plain failure.
    struct Kind {
      int code;
      const char* reason;
      const char* message;
      bool retry_after;
    };
    static constexpr Kind kKinds[] = {
        {429, "TooManyRequests", "Too many requests, please try again later.", true},
        {503, "ServiceUnavailable", "the server is currently unable to handle the request", true},
        {500, "InternalError", "Internal error occurred: etcdserver: request timed out", false}};
    const Kind& k = kKinds[rng() % 3];
    json::object details;
    if (k.retry_after) details["retryAfterSeconds"] = 1;
    Response r = api_status(k.code, k.reason,
                            std::string(k.message) + " (injected by planter sim --error-rate)",
                            std::move(details));
    if (k.retry_after) r.headers.emplace_back("Retry-After", "1");
    return r;
  }

  void accept();
  bool out_of_descriptors_said = false;

  // What every request goes through, whatever its protocol: authentication, impersonation,
  // routing to its cluster, the cluster's latency and injected errors.
  void process(std::shared_ptr<Exchange> ex, Request req, std::string path,
               std::string_view authorization, const Identity& cert_user,
               const std::string& impersonate_user,
               const std::vector<std::string>& impersonate_groups) {
    bool open_path =
        path == "/healthz" || path == "/livez" || path == "/readyz" || path == "/version";
    Identity who = authenticate(authorization, cert_user);
    if (who.user.empty() && !open_path)
      return ex->respond(api_status(401, "Unauthorized", "Unauthorized"));
    req.user = who.user.empty() ? "system:anonymous" : who.user;
    req.groups = who.user.empty() ? std::vector<std::string>{"system:unauthenticated"}
                                  : std::move(who.groups);
    if (!who.user.empty()) req.groups.emplace_back("system:authenticated");

    std::shared_ptr<Cluster> cluster = route(path);
    req.path = std::move(path);
    if (!cluster)
      return ex->respond(
          api_status(404, "NotFound", "the server could not find the requested resource"));
    if (!impersonate_user.empty())
      if (auto denied = cluster->impersonate(req, impersonate_user, impersonate_groups))
        return ex->respond(std::move(*denied));
    auto delay = delay_of(cluster->faults(), Cluster::is_write(req));
    if (delay.count() > 0) {
      auto timer = std::make_shared<net::steady_timer>(io, delay);
      timer->async_wait([this, ex, timer, cluster, req = std::move(req)](beast::error_code) {
        serve(ex, cluster, req);
      });
      return;
    }
    serve(ex, cluster, req);
  }

  void serve(const std::shared_ptr<Exchange>& ex, const std::shared_ptr<Cluster>& cluster,
             const Request& req) {
    bool probe = req.path == "/healthz" || req.path == "/livez" || req.path == "/readyz";
    std::optional<Response> injected = probe ? std::nullopt : injected_error(cluster->faults());
    if (injected) {
      // Only a request that would have succeeded fails, and it changes nothing: a write is
      // tried as a dry run, a watch as a list.
      Request trial = req;
      if (Cluster::is_watch(req)) {
        trial.query.erase("watch");
        trial.query["limit"] = "1";
        if (size_t w = trial.path.find("/watch/"); w != std::string::npos) trial.path.erase(w, 6);
      } else if (Cluster::is_write(req)) {
        trial.query["dryRun"] = "All";
      }
      Response r = cluster->handle(trial);
      if (r.status >= 300) injected.reset();
      if (!injected && !Cluster::is_write(req) && !Cluster::is_watch(req))
        return ex->respond(std::move(r));
    }
    if (injected) return ex->respond(std::move(*injected));
    if (Cluster::is_watch(req)) return ex->start_watch(cluster, req);
    ex->respond(cluster->handle(req));
  }

  // Who a request comes from: no user when nobody the sim knows. The sim's own token is the
  // admin, in system:masters. Plain HTTP is the old insecure port: clients (client-go) send no
  // credentials over it, so it lets everyone in as the admin.
  Identity authenticate(std::string_view authorization, const Identity& cert_user) const {
    Identity admin{"admin", {std::string(kSystemMasters)}};
    if (options.insecure_http) return admin;
    if (authorization.starts_with("Bearer ")) {
      std::string_view t = authorization.substr(7);
      if (t == token) return admin;
      auto it = tokens.find(std::string(t));
      return it == tokens.end() ? Identity{} : it->second;
    }
    if (authorization.starts_with("Basic ")) {
      auto decoded = base64_decode(authorization.substr(6));
      if (!decoded) return {};
      size_t colon = decoded->find(':');
      if (colon == std::string::npos) return {};
      std::string user = decoded->substr(0, colon);
      auto it = passwords.find(user);
      if (it == passwords.end() || it->second.first != decoded->substr(colon + 1)) return {};
      return it->second.second;
    }
    return cert_user;
  }

  std::string url_of() const {
    std::string host = options.address;
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    return (options.insecure_http ? "http://" : "https://") + host + ":" + std::to_string(port);
  }
};

namespace {

// HTTP/2 (RFC 9113) over TLS, chosen by ALPN, with nghttp2 doing the framing: many requests on
// one connection, each stream an Exchange of its own; watches stream DATA frames.
class H2Session : public std::enable_shared_from_this<H2Session> {
 public:
  using Stream = beast::ssl_stream<beast::tcp_stream>;

  H2Session(Server::Impl& server, Stream stream, Identity cert_user)
      : server_(server),
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
    idle_.expires_after(server_.options.idle_timeout);
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
    std::string path = parse_target(st->target, req);
    req.content_type = st->content_type;
    req.accept = st->accept;
    req.user_agent = st->user_agent;
    req.body = std::move(st->body);
    server_.process(st, std::move(req), std::move(path), st->authorization, cert_user_,
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

  Server::Impl& server_;
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

// ALPN: h2 when the client offers it, else HTTP/1.1.
int select_alpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                unsigned int inlen, void*) {
  const unsigned char* http11 = nullptr;
  for (unsigned int i = 0; i < inlen; i += 1u + in[i]) {
    std::string_view proto(reinterpret_cast<const char*>(in + i + 1), in[i]);
    if (proto == "h2") {
      *out = in + i + 1;
      *outlen = in[i];
      return SSL_TLSEXT_ERR_OK;
    }
    if (proto == "http/1.1") http11 = in + i;
  }
  if (!http11) return SSL_TLSEXT_ERR_NOACK;
  *out = http11 + 1;
  *outlen = http11[0];
  return SSL_TLSEXT_ERR_OK;
}

template <class Stream>
class Session : public Exchange, public std::enable_shared_from_this<Session<Stream>> {
 public:
  Session(Server::Impl& server, Stream stream) : server_(server), stream_(std::move(stream)) {}

  void start() {
    if constexpr (std::is_same_v<Stream, beast::ssl_stream<beast::tcp_stream>>) {
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
              std::make_shared<H2Session>(self->server_, std::move(self->stream_), self->cert_user_)
                  ->start();
              return;
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
    beast::get_lowest_layer(stream_).expires_after(server_.options.idle_timeout);
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
    std::string path = parse_target(msg.target(), req);
    req.content_type = std::string(msg[http::field::content_type]);
    req.accept = std::string(msg[http::field::accept]);
    req.user_agent = std::string(msg[http::field::user_agent]);
    req.body = std::move(msg.body());
    std::vector<std::string> groups;
    for (auto [it, end] = msg.equal_range("Impersonate-Group"); it != end; ++it)
      groups.emplace_back(it->value());
    server_.process(this->shared_from_this(), std::move(req), std::move(path),
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

  Server::Impl& server_;
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

void Server::Impl::accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (ec == net::error::operation_aborted) return;
      // Out of descriptors (EMFILE, ENFILE): accepting again at once would spin at 100% CPU.
      // Wait; idle connections time out and give theirs back.
      if (ec == net::error::no_descriptors || ec.value() == ENFILE) {
        if (!out_of_descriptors_said) {
          std::fprintf(stderr,
                       "planter sim: out of file descriptors (%s); accepting again in 100 ms\n",
                       ec.message().c_str());
          out_of_descriptors_said = true;
        }
        auto timer = std::make_shared<net::steady_timer>(io, std::chrono::milliseconds(100));
        return timer->async_wait([this, timer](beast::error_code) { accept(); });
      }
      return accept();
    }
    out_of_descriptors_said = false;
    socket.set_option(tcp::no_delay(true));
    if (options.insecure_http) {
      std::make_shared<Session<beast::tcp_stream>>(*this, beast::tcp_stream(std::move(socket)))
          ->start();
    } else {
      std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
          *this, beast::ssl_stream<beast::tcp_stream>(beast::tcp_stream(std::move(socket)), tls))
          ->start();
    }
    accept();
  });
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
  stop();
}

Result<std::unique_ptr<Server>> Server::create(ServerOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  // With --state-dir the sim keeps who it is across restarts: clients go on with what they have.
  std::optional<SimIdentity> kept;
  if (!options.fleet.state_dir.empty()) {
    auto loaded = load_identity(options.fleet.state_dir);
    if (!loaded) return loaded.error();
    kept = std::move(loaded.value());
  }
  impl->token = !options.token.empty() ? options.token
                : kept                 ? kept->token
                                       : random_token(impl->rng);
  auto tokens = read_auth_csv(options.token_auth_file);
  if (!tokens) return tokens.error();
  impl->tokens = std::move(tokens.value());
  auto passwords = read_auth_csv(options.basic_auth_file);
  if (!passwords) return passwords.error();
  for (auto& [password, who] : passwords.value()) impl->passwords[who.user] = {password, who};
  if (!impl->audit.open(options.audit_log))
    return Error{"cannot open the audit log " + options.audit_log + ": " + std::strerror(errno)};
  if (!options.insecure_http) {
    if (kept && !kept->certs.ca_pem.empty()) {
      impl->certs = kept->certs;
    } else {
      auto certs = make_serving_certificates();
      if (!certs) return certs.error();
      impl->certs = std::move(certs.value());
    }
    beast::error_code ec;
    impl->tls.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                          ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                          ssl::context::no_tlsv1_1);
    impl->tls.use_certificate_chain(net::buffer(impl->certs.cert_pem), ec);
    if (!ec) impl->tls.use_private_key(net::buffer(impl->certs.key_pem), ssl::context::pem, ec);
    // Client certificates are optional; one the CA signed authenticates its CN.
    if (!ec) impl->tls.add_certificate_authority(net::buffer(impl->certs.ca_pem), ec);
    if (!ec) impl->tls.set_verify_mode(ssl::verify_peer, ec);
    if (!ec) impl->tls.set_verify_callback([](bool, ssl::verify_context&) { return true; }, ec);
    SSL_CTX_set_alpn_select_cb(impl->tls.native_handle(), &select_alpn, nullptr);
    if (ec) return Error{"cannot load the sim's TLS certificate: " + ec.message()};
  }
  beast::error_code ec;
  auto address = net::ip::make_address(options.address, ec);
  if (ec) return Error{"invalid listen address " + options.address + ": " + ec.message()};
  tcp::endpoint endpoint(address, options.port);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    return Error{"cannot listen on " + options.address + ":" + std::to_string(options.port) + ": " +
                 ec.message() + " (is another sim running? pick another --port)"};
  impl->port = impl->acceptor.local_endpoint().port();
  bool changed = !kept || kept->token != impl->token || kept->certs.ca_pem != impl->certs.ca_pem;
  if (!options.fleet.state_dir.empty() && changed)
    if (auto err = save_identity(options.fleet.state_dir, {impl->token, impl->certs})) return *err;
  impl->fleet = std::make_unique<Fleet>(options.fleet, impl->environment(), &impl->audit,
                                        Access{impl->url_of(), impl->certs.ca_pem, impl->token});
  Server::Impl* raw = impl.get();
  impl->fleet->on_change = [raw] { raw->kubeconfig_changed(); };
  if (auto err = impl->fleet->start()) return *err;
  impl->write_kubeconfig();
  impl->accept();
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

void Server::run() {
  impl_->io.run();
}

void Server::start() {
  impl_->thread = std::thread([this] { impl_->io.run(); });
}

void Server::stop() {
  if (!impl_) return;
  impl_->io.stop();
  if (impl_->thread.joinable() && impl_->thread.get_id() != std::this_thread::get_id())
    impl_->thread.join();
}

uint16_t Server::port() const {
  return impl_->port;
}

std::string Server::url() const {
  return impl_->url_of();
}

const std::string& Server::token() const {
  return impl_->token;
}
const std::string& Server::ca_pem() const {
  return impl_->certs.ca_pem;
}

Result<std::pair<std::string, std::string>> Server::client_certificate(
    const std::string& user, const std::vector<std::string>& groups) const {
  auto c = make_client_certificate(impl_->certs, user, groups);
  if (!c) return c.error();
  return std::make_pair(c->cert_pem, c->key_pem);
}

std::vector<std::string> Server::cluster_names() const {
  return impl_->fleet->names();
}

std::string Server::kubeconfig() const {
  return impl_->fleet->kubeconfig();
}

}  // namespace planter::sim
