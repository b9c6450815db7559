// The credentials a request carries, from a kubeconfig user: a token, a token file (re-read
// whenever it changes, as a projected service account token rotates), basic auth, a client
// certificate, or an exec credential plugin (run without a shell, KUBERNETES_EXEC_INFO set, its
// ExecCredential cached until its expirationTimestamp, run again after a 401).
//
// Thread-safe. get() may run the exec plugin and so block for as long as it takes: at most
// kExecTimeout, or until cancel(). A plugin that failed is not run again for kExecRetryAfter (its
// error is returned instead), so a queue of requests does not run a hanging plugin once each.
// Error messages name the plugin or file, never a credential.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "kube/api_error.h"
#include "kube/kubeconfig.h"
#include "model/rfc3339.h"

namespace planter::kube {

struct Credentials {
  std::string bearer_token;
  std::string username, password;
  std::string client_certificate_pem, client_key_pem;
  uint64_t generation = 0;  // which fetch of an exec plugin or token file these came from
};

inline constexpr std::chrono::seconds kExecTimeout{30};
inline constexpr std::chrono::seconds kExecRetryAfter{5};

class CredentialSource {
 public:
  using Clock = std::function<std::chrono::system_clock::time_point()>;
  explicit CredentialSource(RestConfig config, Clock now = std::chrono::system_clock::now);

  // The credentials to send now. Errors have reason "Credentials".
  ApiResult<Credentials> get();

  // After a 401 for credentials of `generation`: forgets them unless a newer fetch already
  // replaced them (many requests fail together; the plugin runs once). True when asking again
  // can give other credentials (an exec plugin or a token file): worth one more try.
  bool refresh_after_unauthorized(uint64_t generation);

  // From any thread: a running exec plugin is killed, and get() fails from now on.
  void cancel() { cancelled_ = true; }

 private:
  ApiResult<Credentials> run_exec();

  RestConfig config_;
  Clock now_;
  mutable std::mutex mu_;
  std::optional<Credentials> exec_cached_;
  std::optional<std::chrono::system_clock::time_point> exec_expiry_;
  std::optional<ApiError> exec_failure_;
  std::chrono::steady_clock::time_point exec_failed_at_;
  std::atomic<bool> cancelled_ = false;
  uint64_t generation_ = 1;
  // The token file as last read, and what it looked like on disk then.
  std::string file_token_;
  int64_t file_mtime_ns_ = -1;
  int64_t file_size_ = -1;
  uint64_t file_inode_ = 0;
};

using planter::parse_rfc3339;  // model/rfc3339.h

}  // namespace planter::kube
