#include "sim/kube_scheduler/node_info.h"

#include "sim/json_access.h"

namespace planter::sim::sched {

namespace json = boost::json;

const json::object* NodeInfo::labels() const {
  return object_at(object_at(*node, "metadata"), "labels");
}

const std::string* NodeInfo::label(const std::string& key) const {
  auto it = label_values_.find(key);
  return it == label_values_.end() ? nullptr : &it->second;
}

}  // namespace planter::sim::sched
