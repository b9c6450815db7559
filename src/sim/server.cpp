#include "sim/server.h"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/json/object.hpp>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <stop_token>
#include <thread>

#include "model/base64.h"
#include "model/files.h"
#include "model/strings.h"
#include "sim/rbac.h"
#include "sim/server_front.h"
#include "sim/state_dir.h"
#include "sim/tls.h"

namespace planter::sim {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace json = boost::json;
using tcp = net::ip::tcp;

Response too_large() {
  return api_status(413, "RequestEntityTooLarge",
                    "Request entity too large: limit is " + std::to_string(kBodyLimit));
}

namespace {

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

}  // namespace

struct Server::Impl final : Front {
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
      timer->async_wait([timer, fn = std::move(fn)](boost::system::error_code ec) {
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

  std::chrono::seconds idle_timeout() const override { return options.idle_timeout; }

  void process(std::shared_ptr<Exchange> ex, Request req, std::string path,
               std::string_view authorization, const Identity& cert_user,
               const std::string& impersonate_user,
               const std::vector<std::string>& impersonate_groups) override {
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
    if (cluster->faults().down)
      return ex->respond(api_status(
          503, "ServiceUnavailable",
          "the cluster's API server is stopped (injected by sim.planter.io/down on its Cluster)"));
    if (!impersonate_user.empty())
      if (auto denied = cluster->impersonate(req, impersonate_user, impersonate_groups))
        return ex->respond(std::move(*denied));
    auto delay = delay_of(cluster->faults(), Cluster::is_write(req));
    if (delay.count() > 0) {
      auto timer = std::make_shared<net::steady_timer>(io, delay);
      timer->async_wait([this, ex, timer, cluster, req = std::move(req)](
                            boost::system::error_code) { serve(ex, cluster, req); });
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

}  // namespace

void Server::Impl::accept() {
  acceptor.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
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
        return timer->async_wait([this, timer](boost::system::error_code) { accept(); });
      }
      return accept();
    }
    out_of_descriptors_said = false;
    socket.set_option(tcp::no_delay(true));
    if (options.insecure_http)
      serve_http(*this, std::move(socket));
    else
      serve_https(*this, std::move(socket), tls);
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
  if (options.fault_seed) impl->rng.seed(*options.fault_seed);
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
    boost::system::error_code ec;
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
  boost::system::error_code ec;
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
