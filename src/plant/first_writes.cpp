#include "plant/first_writes.h"

#include <utility>

namespace planter::plant {

FirstWrites::FirstWrites(std::map<std::string, boost::json::object> objects) {
  for (auto& [cluster, object] : objects) writes_[cluster].object = std::move(object);
}

bool FirstWrites::pending(const std::string& cluster) const {
  return writes_.contains(cluster);
}

bool FirstWrites::hold(const std::string& cluster, size_t u) {
  Write& w = writes_.at(cluster);
  w.held.push_back(u);
  bool send = !w.sent;
  w.sent = true;
  return send;
}

const boost::json::object& FirstWrites::object(const std::string& cluster) const {
  return writes_.at(cluster).object;
}

std::vector<size_t> FirstWrites::done(const std::string& cluster) {
  auto it = writes_.find(cluster);
  if (it == writes_.end()) return {};
  std::vector<size_t> held = std::move(it->second.held);
  writes_.erase(it);
  return held;
}

std::vector<size_t> FirstWrites::again(const std::string& cluster) {
  auto it = writes_.find(cluster);
  if (it == writes_.end()) return {};
  it->second.sent = false;
  return std::exchange(it->second.held, {});
}

}  // namespace planter::plant
