#include "sim/controller_kit.h"

#include <boost/json/serialize.hpp>

#include "sim/cluster.h"
#include "sim/json_access.h"

namespace planter::sim {

namespace json = boost::json;

namespace {
constexpr std::string_view kSafeAlphabet = "bcdfghjklmnpqrstvwxz2456789";
}

ControllerKit::ControllerKit(Cluster& cluster) : c_(cluster) {}

ControllerKit::~ControllerKit() {
  *alive_ = false;
  for (uint64_t id : watch_ids_) c_.store().remove_watch(id);
}

Store& ControllerKit::store() {
  return c_.store();
}

std::string ControllerKit::now() const {
  return rfc3339(c_.environment().now());
}

Response ControllerKit::write(std::string method, std::string path, std::string content_type,
                              const json::object& body, std::string_view component,
                              std::map<std::string, std::string> query) {
  // The default field manager is the user agent's program name.
  std::string program =
      component == "kube-scheduler" || component == "kubelet" || component == "kube-apiserver"
          ? std::string(component)
          : "kube-controller-manager";
  return c_.call(std::move(method), std::move(path), std::move(content_type), body,
                 "system:serviceaccount:kube-system:" + std::string(component),
                 program + "/v1.32.0 (linux/amd64) kubernetes/planter-sim", std::move(query));
}

void ControllerKit::put_status(const std::string& path, const json::object& current,
                               json::object status, std::string_view component) {
  if (auto* old = current.if_contains("status"); old && *old == status) return;
  json::object obj = current;
  obj["status"] = std::move(status);
  write("PUT", path + "/status", "application/json", obj, component);
}

json::object ControllerKit::condition(const json::object* old_status, std::string_view type,
                                      std::string_view status, std::string_view reason,
                                      std::string_view message, bool update_time) const {
  const json::object* old = find_condition(old_status, type);
  if (old && string_at(old, "status") == status && string_at(old, "reason") == reason &&
      string_at(old, "message") == message)
    return *old;
  json::object cond{{"type", type}, {"status", status}};
  std::string t = now();
  if (update_time) cond["lastUpdateTime"] = t;
  cond["lastTransitionTime"] =
      old && string_at(old, "status") == status ? old->at("lastTransitionTime") : json::value(t);
  if (!reason.empty()) cond["reason"] = reason;
  if (!message.empty()) cond["message"] = message;
  return cond;
}

void ControllerKit::ready_event(const std::string& object_id, std::string_view what) {
  if (c_.audit()) c_.audit()->ready(c_.environment().now(), c_.name(), object_id, what);
}

EventRecorder& ControllerKit::events(const std::string& component) {
  auto& r = recorders_[component];
  if (!r)
    r = std::make_unique<EventRecorder>(c_, component,
                                        "system:serviceaccount:kube-system:" + component);
  return *r;
}

void ControllerKit::after(std::chrono::milliseconds delay, std::function<void()> fn) {
  auto alive = alive_;
  c_.environment().after(delay, [alive, fn = std::move(fn)] {
    if (*alive) fn();
  });
}

void ControllerKit::watch(const std::string& storage_key, std::function<void(const Change&)> fn) {
  watch_ids_.push_back(c_.store().add_watch(storage_key, std::move(fn)));
}

WorkQueue::WorkQueue(ControllerKit& kit, Reconcile reconcile)
    : kit_(kit), reconcile_(std::move(reconcile)) {}

void WorkQueue::add(const std::string& ns, const std::string& name) {
  keys_.emplace(ns, name);
  if (scheduled_) return;
  scheduled_ = true;
  kit_.after(std::chrono::milliseconds(0), [this] { flush(); });
}

void WorkQueue::follow(const std::string& storage_key) {
  kit_.watch(storage_key,
             [this](const Change& ch) { add(ch.ns, meta_string(*ch.object, "name")); });
  for (const auto& [_, o] : kit_.store().bucket(storage_key))
    add(meta_string(*o, "namespace"), meta_string(*o, "name"));
}

void WorkQueue::follow_owned(const std::string& storage_key, const std::string& owner_kind) {
  kit_.watch(storage_key, [this, owner_kind](const Change& ch) {
    auto [kind, owner] = controller_of(*ch.object);
    if (kind == owner_kind) add(ch.ns, owner);
  });
}

void WorkQueue::flush() {
  scheduled_ = false;
  auto keys = std::move(keys_);
  keys_.clear();
  for (const auto& [ns, name] : keys) reconcile_(ns, name);
}

std::string object_path(std::string_view storage_key, const json::object& object) {
  size_t slash = storage_key.find('/');
  std::string_view group = storage_key.substr(0, slash);
  std::string_view plural = storage_key.substr(slash + 1);
  std::string ns = meta_string(object, "namespace");
  std::string version = string_at(object, "apiVersion");
  return (group.empty() ? "/api/" : "/apis/") + version + (ns.empty() ? "" : "/namespaces/" + ns) +
         "/" + std::string(plural) + "/" + meta_string(object, "name");
}

std::pair<std::string, std::string> controller_of(const json::object& object) {
  const json::object* meta = object_at(object, "metadata");
  auto* refs = meta ? meta->if_contains("ownerReferences") : nullptr;
  if (refs && refs->is_array())
    for (const auto& r : refs->as_array()) {
      if (!r.is_object()) continue;
      auto* controller = r.as_object().if_contains("controller");
      if (controller && controller->is_bool() && controller->as_bool())
        return {string_at(r.as_object(), "kind"), string_at(r.as_object(), "name")};
    }
  return {};
}

std::string safe_hash(std::string_view text, size_t length) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
  std::string out;
  for (size_t i = 0; i < length; ++i, h /= kSafeAlphabet.size())
    out += kSafeAlphabet[h % kSafeAlphabet.size()];
  return out;
}

std::string template_hash(const json::value& pod_template, int64_t collision_count) {
  std::string text = json::serialize(pod_template);
  if (collision_count) text += std::to_string(collision_count);
  uint32_t h = 2166136261u;
  for (unsigned char ch : text) h = (h ^ ch) * 16777619u;
  std::string digits = std::to_string(h), out;
  for (char d : digits) out += kSafeAlphabet[static_cast<unsigned char>(d) % kSafeAlphabet.size()];
  return out;
}

}  // namespace planter::sim
