// kubeconfig files as kubectl reads them, and in-cluster configuration, resolved into a
// RestConfig: everything a client needs to reach one cluster.
//
// Loading follows kubectl: an explicit --kubeconfig file (which must exist), else every file of
// $KUBECONFIG (':'-separated; missing ones skipped) merged so that the first file to define a
// cluster, user or context — or current-context — wins it whole, else ~/.kube/config. Relative
// paths (certificate-authority, client-certificate, client-key, tokenFile, an exec command
// with a '/') resolve against the folder of the file that defined them. A kubeconfig given as
// bytes (a Secret's `value`) resolves against a folder the caller names.
//
// Everything here is a value type; nothing is cached or global. Error messages name the file,
// the context and the entry, never a credential.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/result.h"

namespace planter::kube {

// A `users[].user.exec` credential plugin (client.authentication.k8s.io/v1 or v1beta1).
struct ExecConfig {
  std::string api_version;
  std::string command;  // resolved when it contains a '/'
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string interactive_mode;  // Never, IfAvailable, Always ("" in v1beta1)
  bool provide_cluster_info = false;
  std::string install_hint;
};

// A `users[].user` entry with file contents read in (the token file excepted: it rotates).
struct AuthInfo {
  std::string client_certificate_pem;
  std::string client_key_pem;
  std::string token;
  std::string token_file;  // re-read whenever it changes
  std::string username;
  std::string password;
  std::optional<ExecConfig> exec;
  std::string impersonate;                      // `as`
  std::vector<std::string> impersonate_groups;  // `as-groups`
};

// How to reach one cluster, as a client uses it.
struct RestConfig {
  std::string context;  // the kubeconfig context, or "in-cluster"
  std::string server;   // "https://10.0.0.1:6443/clusters/edge1": a path prefix is kept
  std::string ca_pem;   // empty: the system's trust store
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string proxy_url;
  AuthInfo auth;
  std::string ns = "default";  // the context's namespace
};

// Where kubectl would look, taken from the environment by from_environment().
struct KubeconfigSources {
  std::string explicit_path;   // --kubeconfig
  std::string kubeconfig_env;  // $KUBECONFIG
  std::string home;            // $HOME
  static KubeconfigSources from_environment(std::string explicit_path = "");
};

class Kubeconfig {
 public:
  // Reads and merges the files kubectl would read. An error when none exists (naming where it
  // looked), when a file is not a kubeconfig, or when the explicit file is missing.
  static Result<Kubeconfig> load(const KubeconfigSources& sources);
  // One kubeconfig from bytes; `name` is for messages, `base_dir` resolves relative paths.
  static Result<Kubeconfig> parse(std::string_view bytes, std::string_view name,
                                  std::string base_dir);

  // The named context (or current-context when empty), resolved: files read, exec command
  // located. Errors name the context and what is missing.
  Result<RestConfig> rest_config(std::string_view context = "") const;

  const std::string& current_context() const { return current_context_; }
  std::vector<std::string> contexts() const;
  // Where this kubeconfig came from, for messages: "~/.kube/config" or "a:b".
  const std::string& origin() const { return origin_; }

 private:
  struct Entry {
    std::string name;
    std::string file;          // the file that defined it (for messages)
    std::string dir;           // for relative paths
    boost::json::object body;  // its `cluster`, `user` or `context` map
  };
  bool merge(std::string_view bytes, std::string_view name, const std::string& dir,
             std::string* error);

  std::vector<Entry> clusters_, users_, contexts_;
  std::string current_context_;
  std::string origin_;
};

// The service account's view from inside a pod. `root` replaces "/" for tests.
struct InClusterSources {
  std::string service_host;  // $KUBERNETES_SERVICE_HOST
  std::string service_port;  // $KUBERNETES_SERVICE_PORT
  std::string root;
  static InClusterSources from_environment();
};

// The in-cluster RestConfig: the service's address, the mounted CA and namespace, and the token
// file (re-read as the kubelet rotates it). An error outside a pod.
Result<RestConfig> in_cluster_config(const InClusterSources& sources);

// Every field of `config`, each prefixed by its length: two configurations reach the same server
// as the same identity in the same way exactly when their fingerprints are equal (what a cache of
// clients keeps one under). It holds the credentials: never log it.
std::string fingerprint(const RestConfig& config);

}  // namespace planter::kube
