// Events (core/v1) as the sim's components record them, so `kubectl describe` and `kubectl get
// events` show what happened: "Scheduled", "FailedScheduling", "SuccessfulCreate". Like
// client-go's recorder, the same event about the same object again (same type, reason and
// message) increments the count of the existing Event instead of writing a new one.
//
// Not thread-safe: used on the server's event loop.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace planter::sim {

class Cluster;

class EventRecorder {
 public:
  // `component` is the source ("default-scheduler", "replicaset-controller"), `user` the
  // identity the writes come from.
  EventRecorder(Cluster& cluster, std::string component, std::string user);

  // Records an event about `object` (its apiVersion, kind, namespace, name and uid are read from
  // it). `type`: "Normal" or "Warning".
  void record(const boost::json::object& object, const std::string& type, const std::string& reason,
              const std::string& message);

  // Forgets what was recorded about the object with this uid (it is gone).
  void forget(const std::string& uid);

 private:
  Cluster& cluster_;
  std::string component_;
  std::string user_;
  uint64_t sequence_ = 0;
  struct Written {
    std::string type, reason, message;
    std::string name;  // the Event's, in the object's namespace
  };
  // By the object's uid: what was recorded about it (an object has a few kinds of event at most,
  // so they are scanned; a map of every event's four strings cost 3 % of a scheduled pod).
  std::unordered_map<std::string, std::vector<Written>> written_;
};

}  // namespace planter::sim
