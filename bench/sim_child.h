// Bench support: a `planter sim` in a child process of its own (so that its memory is its own),
// and plain keep-alive HTTP/1.1 connections to it. Boost.Beast stays in sim_child.cpp.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

namespace planter::bench {

struct SimChild {
  pid_t pid = -1;
  std::string port, token;
  bool tls = false;  // https (HTTP/2 with planter's client) rather than plain http
};

// A sim with one cluster of `nodes` nodes (cpu, memory and pod slots each), spread over `zones`
// zones, no kubelet status writes (pods stay Pending once bound). Plain http, or https with
// `tls` (its certificate is not checked by the benches).
// `extended`: NAME=QUANTITY of an extended resource every node advertises (empty: none).
// Without `kubelets`, bound pods stay as bound (nodes as fake as scheduler_perf's).
SimChild start_sim(int nodes, int zones, const std::string& cpu, const std::string& memory,
                   bool tls = false, const std::string& extended = "", bool kubelets = true);
void stop_sim(const SimChild& sim);

class Connection {
 public:
  Connection(const std::string& port, const std::string& token);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  enum class Verb { kGet, kPost };
  // Sends one request; returns the status code, and the body in `body` when given.
  int send(Verb verb, const std::string& target, const std::string& request_body = "",
           std::string* body = nullptr);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::bench
