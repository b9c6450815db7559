// Test support for the client: a `planter sim` fleet served in this process over a real socket
// (HTTPS with the sim's own CA, or plain HTTP), with its audit log in a temporary folder.
#pragma once

#include <boost/json.hpp>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kube/kubeconfig.h"
#include "sim/server.h"

namespace planter::testing {

class SimFleet {
 public:
  explicit SimFleet(sim::ServerOptions options = {});
  // Writes `files` (name -> content) into dir() first, then calls `prepare` to point options at
  // them, then starts the sim.
  SimFleet(
      sim::ServerOptions options, const std::map<std::string, std::string>& files,
      const std::function<void(const std::filesystem::path& dir, sim::ServerOptions&)>& prepare);
  ~SimFleet();

  sim::Server& server() const { return *server_; }
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path audit_log() const { return dir_ / "audit.jsonl"; }
  // Writes `content` to dir()/name and returns the path.
  std::filesystem::path write(const std::string& name, const std::string& content) const;

  // The sim's own kubeconfig (a context per cluster, the admin token).
  std::string kubeconfig() const { return server_->kubeconfig(); }
  // The RestConfig of a context of that kubeconfig ("management", "edge1", ...).
  kube::RestConfig rest_config(const std::string& context = "management") const;

  // Audit lines of successful requests: {"verb","object","user","code","cluster"}.
  std::vector<boost::json::object> audit_requests() const;

 private:
  std::filesystem::path dir_;
  std::unique_ptr<sim::Server> server_;
};

// A kubeconfig for one cluster at `server` with the given user entry (YAML map body).
std::string kubeconfig_with_user(const std::string& server, const std::string& ca_pem,
                                 const std::string& user_yaml);

}  // namespace planter::testing
