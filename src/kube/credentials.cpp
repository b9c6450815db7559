#include "kube/credentials.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <boost/json.hpp>
#include <cctype>
#include <ctime>

#include "kube/json_limits.h"
#include "model/base64.h"
#include "model/files.h"
#include "model/object.h"
#include "model/process.h"

namespace planter::kube {

namespace json = boost::json;

CredentialSource::CredentialSource(RestConfig config, Clock now)
    : config_(std::move(config)), now_(std::move(now)) {}

ApiResult<Credentials> CredentialSource::get() {
  std::lock_guard lock(mu_);
  const AuthInfo& a = config_.auth;
  if (a.exec) {
    bool fresh = exec_cached_ && (!exec_expiry_ || now_() < *exec_expiry_);
    if (!fresh) {
      if (exec_failure_ && std::chrono::steady_clock::now() - exec_failed_at_ < kExecRetryAfter)
        return *exec_failure_;
      auto c = run_exec();
      if (!c) {
        exec_failure_ = c.error();
        exec_failed_at_ = std::chrono::steady_clock::now();
        return c.error();
      }
      exec_failure_.reset();
      exec_cached_ = c.value();
      ++generation_;
    }
    Credentials out = *exec_cached_;
    out.generation = generation_;
    // Client certificate data in the kubeconfig wins over the plugin's, as in client-go.
    if (!a.client_certificate_pem.empty()) {
      out.client_certificate_pem = a.client_certificate_pem;
      out.client_key_pem = a.client_key_pem;
    }
    return out;
  }
  Credentials c;
  c.client_certificate_pem = a.client_certificate_pem;
  c.client_key_pem = a.client_key_pem;
  c.username = a.username;
  c.password = a.password;
  c.bearer_token = a.token;
  if (c.bearer_token.empty() && !a.token_file.empty()) {
    struct stat st {};
    if (::stat(a.token_file.c_str(), &st) != 0)
      return client_error("Credentials", fmt::format("cannot read the token file {}: {}",
                                                     a.token_file, std::strerror(errno)));
    int64_t mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    if (mtime != file_mtime_ns_ || st.st_size != file_size_ || st.st_ino != file_inode_) {
      auto content = read_file(a.token_file);
      if (!content) return client_error("Credentials", "token file " + content.error().message);
      std::string t = std::move(content.value());
      while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
      file_token_ = std::move(t);
      file_mtime_ns_ = mtime;
      file_size_ = st.st_size;
      file_inode_ = st.st_ino;
      ++generation_;
    }
    c.bearer_token = file_token_;
  }
  c.generation = generation_;
  return c;
}

bool CredentialSource::refresh_after_unauthorized(uint64_t generation) {
  std::lock_guard lock(mu_);
  bool refreshable =
      config_.auth.exec || (config_.auth.token.empty() && !config_.auth.token_file.empty());
  if (generation != generation_) return refreshable;  // someone already refreshed them
  if (config_.auth.exec) {
    exec_cached_.reset();
    exec_expiry_.reset();
    return true;
  }
  if (config_.auth.token.empty() && !config_.auth.token_file.empty()) {
    file_mtime_ns_ = -1;  // read it again, changed or not
    return true;
  }
  return false;
}

ApiResult<Credentials> CredentialSource::run_exec() {
  const ExecConfig& x = *config_.auth.exec;
  json::object spec{{"interactive", false}};
  if (x.provide_cluster_info) {
    json::object cluster{{"server", config_.server}};
    if (!config_.ca_pem.empty())
      cluster["certificate-authority-data"] = base64_encode(config_.ca_pem);
    if (!config_.tls_server_name.empty()) cluster["tls-server-name"] = config_.tls_server_name;
    if (config_.insecure_skip_tls_verify) cluster["insecure-skip-tls-verify"] = true;
    if (!config_.proxy_url.empty()) cluster["proxy-url"] = config_.proxy_url;
    spec["cluster"] = std::move(cluster);
  }
  json::object info{{"apiVersion", x.api_version}, {"kind", "ExecCredential"}, {"spec", spec}};
  ProcessSpec ps;
  ps.path = x.command;
  ps.args = x.args;
  ps.env = x.env;
  ps.env.emplace_back("KUBERNETES_EXEC_INFO", json::serialize(info));
  ps.timeout = kExecTimeout;
  ps.cancel = &cancelled_;
  ps.max_output_bytes = 1u << 20;
  std::string who = fmt::format("exec credential plugin {}", x.command);
  if (x.interactive_mode == "Always")
    return client_error("Credentials",
                        who +
                            " wants a terminal (interactiveMode: Always); planter runs "
                            "without one: use IfAvailable or Never");
  auto run = run_process(ps);
  if (!run) {
    std::string hint = x.install_hint.empty() ? "" : "\n" + x.install_hint;
    return client_error("Credentials", fmt::format("{}: {}{}", who, run.error().message, hint));
  }
  if (!run->succeeded()) {
    std::string err = tail_lines(run->err, 5);
    return client_error("Credentials", fmt::format("{} {}{}{}", who, describe_exit(*run, ps),
                                                   err.empty() ? "" : "; its stderr: ", err));
  }
  json::error_code ec;
  json::value out = json::parse(run->out, ec, {}, json_limits());
  if (ec || !out.is_object())
    return client_error("Credentials", who + " did not write an ExecCredential (JSON) on stdout");
  const json::object& o = out.get_object();
  if (string_field(o, {"kind"}) != "ExecCredential" ||
      string_field(o, {"apiVersion"}) != x.api_version)
    return client_error("Credentials", fmt::format("{} wrote {} {}, expected {} ExecCredential",
                                                   who, string_field(o, {"apiVersion"}),
                                                   string_field(o, {"kind"}), x.api_version));
  auto st = o.find("status");
  if (st == o.end() || !st->value().is_object())
    return client_error("Credentials", who + " wrote an ExecCredential without status");
  const json::object& status = st->value().get_object();
  Credentials c;
  c.bearer_token = string_field(status, {"token"});
  c.client_certificate_pem = string_field(status, {"clientCertificateData"});
  c.client_key_pem = string_field(status, {"clientKeyData"});
  if (c.bearer_token.empty() && c.client_certificate_pem.empty())
    return client_error(
        "Credentials",
        who + " wrote an ExecCredential with neither token nor clientCertificateData");
  if (c.client_certificate_pem.empty() != c.client_key_pem.empty())
    return client_error("Credentials",
                        who + " wrote clientCertificateData and clientKeyData, only one of them");
  std::string expiry = string_field(status, {"expirationTimestamp"});
  exec_expiry_.reset();
  if (!expiry.empty()) {
    auto t = parse_rfc3339(expiry);
    if (!t)
      return client_error("Credentials",
                          fmt::format("{}: expirationTimestamp {} is not RFC 3339", who, expiry));
    exec_expiry_ = *t;
  }
  return c;
}

}  // namespace planter::kube
