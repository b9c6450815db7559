#include "sim_child.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdio>
#include <cstdlib>

#include "sim/server.h"

namespace planter::bench {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

struct Connection::Impl {
  net::io_context ioc;
  beast::tcp_stream stream{ioc};
  beast::flat_buffer buffer;
  std::string port;
  std::string token;

  void connect() {
    tcp::resolver resolver(ioc);
    stream.connect(resolver.resolve("127.0.0.1", port));
  }
};

Connection::Connection(const std::string& port, const std::string& token)
    : impl_(std::make_unique<Impl>()) {
  impl_->port = port;
  impl_->token = token;
  impl_->connect();
}
Connection::~Connection() = default;

int Connection::send(Verb verb, const std::string& target, const std::string& request_body,
                     std::string* body) {
  http::request<http::string_body> req{verb == Verb::kGet ? http::verb::get : http::verb::post,
                                       target, 11};
  req.set(http::field::host, "127.0.0.1");
  req.set(http::field::authorization, "Bearer " + impl_->token);
  if (!request_body.empty()) {
    req.set(http::field::content_type, "application/json");
    req.body() = request_body;
  }
  req.prepare_payload();
  http::response<http::string_body> res;
  beast::error_code ec;
  http::write(impl_->stream, req, ec);
  if (!ec) http::read(impl_->stream, impl_->buffer, res, ec);
  if (ec) {
    // The sim closes a connection idle for its idle timeout (90 s; a wait on a slow shape
    // leaves one so): connect again and send once more, as an HTTP client does.
    impl_->stream.close();
    impl_->buffer.clear();
    impl_->connect();
    res = {};
    http::write(impl_->stream, req);
    http::read(impl_->stream, impl_->buffer, res);
  }
  if (body) *body = std::move(res.body());
  return res.result_int();
}

SimChild start_sim(int nodes, int zones, const std::string& cpu, const std::string& memory,
                   bool tls, const std::string& extended, bool kubelets) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    sim::ServerOptions options;
    options.insecure_http = !tls;
    auto& c = options.fleet.cluster;
    c.nodes = {sim::NodePool{nodes, {}}};
    c.node_cpu = cpu;
    c.node_memory = memory;
    c.node_pods = 110;
    c.kubelets = kubelets;
    if (!extended.empty())
      c.node_resources[extended.substr(0, extended.find('='))] =
          extended.substr(extended.find('=') + 1);
    c.zones = zones;
    c.workload_delay = std::chrono::hours(1);  // no kubelet status writes while measuring
    c.history_limit = 1000;
    auto server = sim::Server::create(options);
    if (!server) {
      std::fprintf(stderr, "bench: %s\n", server.error().message.c_str());
      std::_Exit(1);
    }
    (*server)->start();
    std::string url = (*server)->url();
    std::string line = url.substr(url.rfind(':') + 1) + " " + (*server)->token() + "\n";
    if (write(fds[1], line.data(), line.size()) < 0) std::_Exit(1);
    close(fds[1]);
    pause();
    std::_Exit(0);
  }
  close(fds[1]);
  char buf[256] = {};
  ssize_t n = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  SimChild child;
  child.pid = pid;
  child.tls = tls;
  std::string text(buf, n > 0 ? static_cast<size_t>(n) : 0);
  child.port = text.substr(0, text.find(' '));
  child.token = text.substr(text.find(' ') + 1);
  if (!child.token.empty()) child.token.pop_back();
  return child;
}

void stop_sim(const SimChild& sim) {
  kill(sim.pid, SIGKILL);
  waitpid(sim.pid, nullptr, 0);
}

}  // namespace planter::bench
