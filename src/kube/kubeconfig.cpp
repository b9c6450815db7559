#include "kube/kubeconfig.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>

#include "model/base64.h"
#include "model/files.h"
#include "model/object.h"
#include "model/yaml.h"

namespace planter::kube {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

// What is wrong with a cluster's server URL, as far as can be told without connecting.
std::optional<std::string> server_url_problem(std::string_view url) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return "is not a URL";
  std::string_view scheme = url.substr(0, scheme_end);
  if (scheme != "https" && scheme != "http")
    return fmt::format("has scheme \"{}\", not https or http", scheme);
  std::string_view rest = url.substr(scheme_end + 3);
  std::string_view host = rest.substr(0, rest.find('/'));
  if (host.empty() || host.front() == ':') return "has no host";
  for (char c : url)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f)
      return "holds a space or a control character";
  return std::nullopt;
}

bool boolean(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_bool() && it->value().get_bool();
}

std::string resolve(const std::string& dir, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(dir) / path).lexically_normal().string();
}

// certificate-authority-data and friends: base64 of PEM in a file, but PEM is tolerated too.
Result<std::string> pem_of(const json::object& o, std::string_view data_key,
                           std::string_view file_key, const std::string& dir,
                           std::string_view what) {
  std::string data = string_field(o, {data_key});
  if (!data.empty()) {
    if (data.starts_with("-----BEGIN")) return data;
    auto decoded = base64_decode(data);
    if (!decoded) return Error{fmt::format("{}: {} is not base64", what, data_key)};
    return *decoded;
  }
  std::string file = string_field(o, {file_key});
  if (file.empty()) return std::string();
  auto content = read_file(resolve(dir, file));
  if (!content) return Error{fmt::format("{}: {}: {}", what, file_key, content.error().message)};
  return content.value();
}

}  // namespace

KubeconfigSources KubeconfigSources::from_environment(std::string explicit_path) {
  KubeconfigSources s;
  s.explicit_path = std::move(explicit_path);
  if (const char* k = std::getenv("KUBECONFIG")) s.kubeconfig_env = k;
  if (const char* h = std::getenv("HOME")) s.home = h;
  return s;
}

bool Kubeconfig::merge(std::string_view bytes, std::string_view name, const std::string& dir,
                       std::string* error) {
  auto docs = parse_yaml_stream(bytes, name);
  if (!docs) {
    *error = docs.error().message;
    return false;
  }
  if (docs->empty() || docs->front().value.is_null()) return true;  // an empty file is allowed
  if (!docs->front().value.is_object()) {
    *error =
        fmt::format("{}: not a kubeconfig (expected a map with clusters, users, contexts)", name);
    return false;
  }
  const json::object& root = docs->front().value.get_object();
  std::string kind = string_field(root, {"kind"});
  if (!kind.empty() && kind != "Config") {
    *error = fmt::format("{}: not a kubeconfig (kind {})", name, kind);
    return false;
  }
  if (current_context_.empty()) current_context_ = string_field(root, {"current-context"});
  struct Section {
    const char* list;
    const char* item;
    std::vector<Entry>* into;
  };
  for (const Section& sec :
       {Section{"clusters", "cluster", &clusters_}, Section{"users", "user", &users_},
        Section{"contexts", "context", &contexts_}}) {
    auto it = root.find(sec.list);
    if (it == root.end() || it->value().is_null()) continue;
    if (!it->value().is_array()) {
      *error = fmt::format("{}: {} must be a list", name, sec.list);
      return false;
    }
    for (const json::value& v : it->value().get_array()) {
      if (!v.is_object()) continue;
      std::string entry_name = string_field(v.get_object(), {"name"});
      if (entry_name.empty()) {
        *error = fmt::format("{}: an entry of {} has no name", name, sec.list);
        return false;
      }
      // kubectl's rule: the first file to define a name keeps it whole.
      bool known = false;
      for (const Entry& e : *sec.into) known = known || e.name == entry_name;
      if (known) continue;
      Entry e{entry_name, std::string(name), dir, {}};
      if (auto b = v.get_object().find(sec.item);
          b != v.get_object().end() && b->value().is_object())
        e.body = b->value().get_object();
      sec.into->push_back(std::move(e));
    }
  }
  return true;
}

Result<Kubeconfig> Kubeconfig::parse(std::string_view bytes, std::string_view name,
                                     std::string base_dir) {
  Kubeconfig k;
  k.origin_ = std::string(name);
  std::string error;
  if (!k.merge(bytes, name, base_dir, &error)) return Error{error};
  return k;
}

Result<Kubeconfig> Kubeconfig::load(const KubeconfigSources& sources) {
  Kubeconfig k;
  std::vector<std::string> files;
  bool must_exist = false;
  if (!sources.explicit_path.empty()) {
    files.push_back(sources.explicit_path);
    must_exist = true;
  } else if (!sources.kubeconfig_env.empty()) {
    std::string_view rest = sources.kubeconfig_env;
    while (true) {
      size_t colon = rest.find(':');
      std::string f(rest.substr(0, colon));
      if (!f.empty()) files.push_back(f);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  } else if (!sources.home.empty()) {
    files.push_back((fs::path(sources.home) / ".kube" / "config").string());
  }
  int read = 0;
  for (const std::string& f : files) {
    std::error_code ec;
    if (!fs::exists(f, ec)) {
      if (must_exist) return Error{fmt::format("kubeconfig {} does not exist", f)};
      continue;
    }
    auto content = read_file(f);
    if (!content) return Error{content.error().message};
    std::string dir = fs::absolute(fs::path(f), ec).parent_path().string();
    std::string error;
    if (!k.merge(content.value(), f, dir, &error)) return Error{error};
    ++read;
  }
  if (read == 0) {
    return Error{files.empty()
                     ? std::string("no kubeconfig: set KUBECONFIG or pass --kubeconfig")
                     : fmt::format("no kubeconfig found (looked for {}); pass --kubeconfig",
                                   fmt::join(files, ", "))};
  }
  k.origin_ = fmt::format("{}", fmt::join(files, ":"));
  return k;
}

std::vector<std::string> Kubeconfig::contexts() const {
  std::vector<std::string> out;
  for (const Entry& e : contexts_) out.push_back(e.name);
  return out;
}

Result<RestConfig> Kubeconfig::rest_config(std::string_view context) const {
  std::string name = context.empty() ? current_context_ : std::string(context);
  if (name.empty())
    return Error{fmt::format("{}: no current-context; name a context (--context)", origin_)};
  auto find = [](const std::vector<Entry>& list, std::string_view n) -> const Entry* {
    for (const Entry& e : list)
      if (e.name == n) return &e;
    return nullptr;
  };
  const Entry* ctx = find(contexts_, name);
  if (!ctx) {
    return Error{fmt::format("{}: context \"{}\" not found (known: {})", origin_, name,
                             fmt::join(contexts(), ", "))};
  }
  RestConfig rc;
  rc.context = name;
  std::string cluster_name = string_field(ctx->body, {"cluster"});
  std::string user_name = string_field(ctx->body, {"user"});
  if (std::string ns = string_field(ctx->body, {"namespace"}); !ns.empty()) rc.ns = ns;

  const Entry* cluster = find(clusters_, cluster_name);
  if (!cluster)
    return Error{fmt::format("{}: context \"{}\" names cluster \"{}\", which is not defined",
                             ctx->file, name, cluster_name)};
  std::string what = fmt::format("{}: cluster \"{}\"", cluster->file, cluster_name);
  rc.server = string_field(cluster->body, {"server"});
  if (rc.server.empty()) return Error{what + " has no server"};
  if (auto why = server_url_problem(rc.server))
    return Error{fmt::format("{}: server \"{}\" {}: write it as https://HOST[:PORT][/PATH]", what,
                             rc.server, *why)};
  while (rc.server.size() > 1 && rc.server.back() == '/') rc.server.pop_back();
  auto ca = pem_of(cluster->body, "certificate-authority-data", "certificate-authority",
                   cluster->dir, what);
  if (!ca) return ca.error();
  rc.ca_pem = ca.value();
  rc.insecure_skip_tls_verify = boolean(cluster->body, "insecure-skip-tls-verify");
  rc.tls_server_name = string_field(cluster->body, {"tls-server-name"});
  rc.proxy_url = string_field(cluster->body, {"proxy-url"});

  if (user_name.empty()) return rc;  // anonymous
  const Entry* user = find(users_, user_name);
  if (!user)
    return Error{fmt::format("{}: context \"{}\" names user \"{}\", which is not defined",
                             ctx->file, name, user_name)};
  what = fmt::format("{}: user \"{}\"", user->file, user_name);
  const json::object& u = user->body;
  AuthInfo& a = rc.auth;
  auto cert = pem_of(u, "client-certificate-data", "client-certificate", user->dir, what);
  if (!cert) return cert.error();
  auto key = pem_of(u, "client-key-data", "client-key", user->dir, what);
  if (!key) return key.error();
  a.client_certificate_pem = cert.value();
  a.client_key_pem = key.value();
  if (a.client_certificate_pem.empty() != a.client_key_pem.empty())
    return Error{what +
                 " has a client certificate without its key, or a key without its "
                 "certificate"};
  a.token = string_field(u, {"token"});
  a.token_file = resolve(user->dir, string_field(u, {"tokenFile"}));
  a.username = string_field(u, {"username"});
  a.password = string_field(u, {"password"});
  a.impersonate = string_field(u, {"as"});
  if (auto g = u.find("as-groups"); g != u.end() && g->value().is_array())
    for (const json::value& v : g->value().get_array())
      if (v.is_string()) a.impersonate_groups.emplace_back(v.get_string());
  if (auto e = u.find("exec"); e != u.end() && e->value().is_object()) {
    const json::object& eo = e->value().get_object();
    ExecConfig x;
    x.api_version = string_field(eo, {"apiVersion"});
    x.command = string_field(eo, {"command"});
    if (x.command.empty()) return Error{what + ": exec has no command"};
    if (x.command.find('/') != std::string::npos) x.command = resolve(user->dir, x.command);
    if (x.api_version != "client.authentication.k8s.io/v1" &&
        x.api_version != "client.authentication.k8s.io/v1beta1")
      return Error{
          fmt::format("{}: exec apiVersion \"{}\" is not supported (use "
                      "client.authentication.k8s.io/v1 or v1beta1)",
                      what, x.api_version)};
    if (auto args = eo.find("args"); args != eo.end() && args->value().is_array())
      for (const json::value& v : args->value().get_array())
        if (v.is_string()) x.args.emplace_back(v.get_string());
    if (auto env = eo.find("env"); env != eo.end() && env->value().is_array())
      for (const json::value& v : env->value().get_array())
        if (v.is_object())
          x.env.emplace_back(string_field(v.get_object(), {"name"}),
                             string_field(v.get_object(), {"value"}));
    x.interactive_mode = string_field(eo, {"interactiveMode"});
    if (x.api_version == "client.authentication.k8s.io/v1" && x.interactive_mode.empty())
      return Error{what + ": exec needs interactiveMode in client.authentication.k8s.io/v1"};
    x.provide_cluster_info = boolean(eo, "provideClusterInfo");
    x.install_hint = string_field(eo, {"installHint"});
    a.exec = std::move(x);
  }
  return rc;
}

InClusterSources InClusterSources::from_environment() {
  InClusterSources s;
  if (const char* h = std::getenv("KUBERNETES_SERVICE_HOST")) s.service_host = h;
  if (const char* p = std::getenv("KUBERNETES_SERVICE_PORT")) s.service_port = p;
  return s;
}

Result<RestConfig> in_cluster_config(const InClusterSources& sources) {
  if (sources.service_host.empty() || sources.service_port.empty())
    return Error{
        "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
        "are not set; pass --kubeconfig"};
  std::string dir = sources.root + "/var/run/secrets/kubernetes.io/serviceaccount";
  RestConfig rc;
  rc.context = "in-cluster";
  std::string host = sources.service_host;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  rc.server = "https://" + host + ":" + sources.service_port;
  auto ca = read_file(dir + "/ca.crt");
  if (!ca) return Error{"in-cluster: " + ca.error().message};
  rc.ca_pem = ca.value();
  rc.auth.token_file = dir + "/token";
  std::error_code ec;
  if (!fs::exists(rc.auth.token_file, ec))
    return Error{"in-cluster: no service account token at " + rc.auth.token_file};
  if (auto ns = read_file(dir + "/namespace"); ns && !ns->empty()) {
    std::string n = ns.value();
    while (!n.empty() && std::isspace(static_cast<unsigned char>(n.back()))) n.pop_back();
    rc.ns = n;
  }
  return rc;
}

std::string fingerprint(const RestConfig& config) {
  std::string out;
  auto add = [&out](std::string_view field) {
    out += std::to_string(field.size());
    out += ':';
    out += field;
  };
  for (std::string_view f :
       {std::string_view(config.context), std::string_view(config.server),
        std::string_view(config.ca_pem), std::string_view(config.tls_server_name),
        std::string_view(config.proxy_url), std::string_view(config.ns)})
    add(f);
  add(config.insecure_skip_tls_verify ? "1" : "0");
  const AuthInfo& a = config.auth;
  for (const std::string* f : {&a.client_certificate_pem, &a.client_key_pem, &a.token,
                               &a.token_file, &a.username, &a.password, &a.impersonate})
    add(*f);
  add(std::to_string(a.impersonate_groups.size()));
  for (const std::string& g : a.impersonate_groups) add(g);
  add(a.exec ? "exec" : "");
  if (a.exec) {
    const ExecConfig& e = *a.exec;
    for (const std::string* f : {&e.api_version, &e.command, &e.interactive_mode, &e.install_hint})
      add(*f);
    add(e.provide_cluster_info ? "1" : "0");
    add(std::to_string(e.args.size()));
    for (const std::string& arg : e.args) add(arg);
    add(std::to_string(e.env.size()));
    for (const auto& [name, value] : e.env) {
      add(name);
      add(value);
    }
  }
  return out;
}

}  // namespace planter::kube
