// A pod's log, exec, attach and portforward, as far as a simulated container has them: it runs
// no process, so its log is one line saying so, and exec, attach and port-forward answer a
// Status that says why they cannot be served (instead of a bare 404 that reads like a typo).
// The checks before are kube-apiserver's: the pod exists, the container is one of its own (or
// the pod has only one), and it has started.
#include <algorithm>

#include "sim/api_errors.h"
#include "sim/handler.h"
#include "sim/json_access.h"

namespace planter::sim {

namespace {

// The names of a pod's containers, in order.
std::vector<std::string> container_names(const json::object& pod) {
  std::vector<std::string> out;
  for (const json::object* c : containers_in(object_at(pod, "spec"), "containers"))
    out.push_back(string_at(c, "name"));
  return out;
}

}  // namespace

Response Handler::pod_subresource(const Cluster::Target& t) {
  StoredObject pod = c.store_.get(t.type->storage_key(), t.ns, t.name);
  if (!pod) return not_found(*t.type, t.name);
  if (t.subresource != "log")
    return bad_request("planter sim: pods/" + t.subresource + " is not served for pod \"" + t.name +
                       "\": the sim's containers are simulated and run no process");
  std::vector<std::string> containers = container_names(*pod);
  std::string container(query(req, "container"));
  if (container.empty()) {
    if (containers.size() != 1) {
      std::string names;
      for (const std::string& n : containers) names += (names.empty() ? "" : " ") + n;
      return bad_request("a container name must be specified for pod " + t.name +
                         ", choose one of: [" + names + "]");
    }
    container = containers.front();
  } else if (std::find(containers.begin(), containers.end(), container) == containers.end()) {
    return bad_request("container " + container + " is not valid for pod " + t.name);
  }
  std::string phase = string_at(object_at(&*pod, "status"), "phase");
  if (phase != "Running" && phase != "Succeeded" && phase != "Failed")
    return bad_request("container \"" + container + "\" in pod \"" + t.name +
                       "\" is waiting to start: ContainerCreating");
  return Response{200,
                  "text/plain",
                  "planter sim: container " + container + " of pod " + t.ns + "/" + t.name +
                      " is simulated: no process runs in it, so it writes no log\n",
                  {}};
}

}  // namespace planter::sim
