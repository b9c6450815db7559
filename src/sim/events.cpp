#include "sim/events.h"

#include <algorithm>
#include <cstdio>

#include "sim/cluster.h"
#include "sim/json_access.h"

namespace planter::sim {

namespace json = boost::json;

EventRecorder::EventRecorder(Cluster& cluster, std::string component, std::string user)
    : cluster_(cluster), component_(std::move(component)), user_(std::move(user)) {}

void EventRecorder::record(const json::object& object, const std::string& type,
                           const std::string& reason, const std::string& message) {
  std::string ns = meta_string(object, "namespace");
  if (ns.empty()) ns = "default";
  std::string uid = meta_string(object, "uid");
  std::string time = rfc3339(cluster_.environment().now());
  std::string agent = component_ + "/v1.32.0 (linux/amd64) kubernetes/planter-sim";
  auto written = written_.find(uid);
  if (written != written_.end()) {
    auto& list = written->second;
    auto same = std::find_if(list.begin(), list.end(), [&](const Written& w) {
      return w.type == type && w.reason == reason && w.message == message;
    });
    if (same != list.end()) {
      if (StoredObject old = cluster_.store().get("/events", ns, same->name)) {
        json::object ev = *old;
        ev["count"] = int_at(&ev, "count", 1) + 1;
        ev["lastTimestamp"] = time;
        cluster_.call("PUT", "/api/v1/namespaces/" + ns + "/events/" + same->name,
                      "application/json", ev, user_, agent);
        return;
      }
      list.erase(same);
    }
  }
  // Names as client-go makes them: the object's name and a unique hexadecimal suffix.
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                   cluster_.environment().now().time_since_epoch())
                   .count();
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "%llx",
                static_cast<unsigned long long>(nanos) + ++sequence_);
  std::string name = meta_string(object, "name") + "." + suffix;
  json::object ev{{"apiVersion", "v1"},
                  {"kind", "Event"},
                  {"metadata", {{"name", name}, {"namespace", ns}}},
                  {"involvedObject",
                   {{"apiVersion", string_at(object, "apiVersion")},
                    {"kind", string_at(object, "kind")},
                    {"namespace", meta_string(object, "namespace")},
                    {"name", meta_string(object, "name")},
                    {"uid", uid},
                    {"resourceVersion", meta_string(object, "resourceVersion")}}},
                  {"reason", reason},
                  {"message", message},
                  {"source", {{"component", component_}}},
                  {"firstTimestamp", time},
                  {"lastTimestamp", time},
                  {"count", 1},
                  {"type", type},
                  {"eventTime", nullptr},
                  {"reportingComponent", component_},
                  {"reportingInstance", ""}};
  Response r = cluster_.call("POST", "/api/v1/namespaces/" + ns + "/events", "application/json", ev,
                             user_, agent);
  if (r.status == 201) written_[uid].push_back(Written{type, reason, message, std::move(name)});
}

void EventRecorder::forget(const std::string& uid) {
  written_.erase(uid);
}

}  // namespace planter::sim
