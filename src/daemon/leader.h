// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it: a
// candidate takes the Lease when its holder has not renewed it for a lease duration (measured on
// the candidate's own clock from when it last saw the Lease change, so clock skew between
// replicas does not matter), the leader renews every retry period and gives up when it could not
// renew for the renew deadline; on a clean stop, once its work has stopped, it releases the Lease
// so a standby takes over at once. Writes carry the Lease's resourceVersion: two candidates cannot
// both win.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>

#include "kube/client.h"

namespace planter::daemon {

// Sleeps for `d` unless `stop` is requested first; false when it was.
bool sleep_for(std::stop_token stop, std::chrono::milliseconds d);

struct LeaseOptions {
  std::string ns = "planter-system";
  std::string name = "planter-operator";
  std::string identity;  // this replica: hostname_pid when empty
  std::chrono::milliseconds lease_duration{15'000};
  std::chrono::milliseconds renew_deadline{10'000};
  std::chrono::milliseconds retry_period{2'000};
};

class LeaderElector {
 public:
  using Note = std::function<void(const std::string& what)>;
  LeaderElector(kube::Client& client, LeaseOptions options, Note note);

  // What keeps this replica from ever holding the Lease, checked once at start: its namespace does
  // not exist (nothing creates it later), or the operator may not read Leases there. Empty when
  // none; a server that does not answer yet is no such problem.
  std::string blocker();
  // Tries until this replica holds the Lease (true) or `stop` is requested (false).
  bool acquire(std::stop_token stop);
  // One attempt to take the Lease (or renew it, when held): true when this replica holds it.
  bool try_once() { return try_acquire_or_renew(); }
  // Renews until `stop` is requested (true) or until renewing failed for the renew deadline
  // (false: leadership is lost). The Lease is still held: release it once the work has stopped.
  bool hold(std::stop_token stop);
  // Gives the Lease up (when this replica holds it) through `client`, so that a standby takes over
  // at once: a stopping process's own client has had its requests abandoned.
  void release(kube::Client& client);

  const std::string& identity() const { return options_.identity; }

 private:
  // One attempt to take or renew the Lease; true when this replica holds it afterwards.
  bool try_acquire_or_renew();

  kube::Client& client_;
  LeaseOptions options_;
  Note note_;
  std::string observed_;  // the Lease's spec as last seen
  std::chrono::steady_clock::time_point observed_at_;
  std::string last_holder_;
};

}  // namespace planter::daemon
