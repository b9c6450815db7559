#include "sim/cluster.h"

#include <boost/json/serialize.hpp>

#include "sim/controllers.h"
#include "sim/handler.h"
#include "sim/json_access.h"
#include "sim/kube_scheduler/scheduler.h"

namespace planter::sim {

Cluster::Cluster(std::string name, ClusterOptions options, Environment env, AuditLog* audit,
                 const Snapshot* restored)
    : options_(std::move(options)),
      env_(std::move(env)),
      audit_(audit),
      name_(std::move(name)),
      catalog_(Catalog::builtin(options_.api_minor)),
      store_(options.history_limit),
      alive_(std::make_shared<bool>(true)) {
  Request boot;
  boot.user = "system:apiserver";
  Handler h{*this, boot};
  if (restored) {
    store_.restore(restored->objects, restored->resource_version);
    h.resume_after_restore();
  } else {
    // Every cluster starts with the namespaces a kube-apiserver creates.
    const ResourceType* ns_type = catalog_.find("", "v1", "namespaces");
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
      json::object obj{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}};
      h.prepare_create(*ns_type, obj);
      store_.put(ns_type->storage_key(), std::move(obj));
    }
  }
  controllers_ = std::make_unique<Controllers>(*this);
  scheduler_ = std::make_unique<sched::Scheduler>(*this, options_.scheduler_seed);
}

void Cluster::install_crd(json::object crd) {
  call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", crd,
       "system:apiserver", "kube-apiserver/v1.32.0");
  Handler::establish_crd(this, meta_string(crd, "name"), false);
}

void Cluster::serve_aggregated(const std::string& key, std::vector<ResourceType> types) {
  // Discovery changes only when what is served does (reconciles come with every endpoint change).
  std::string served;
  for (const ResourceType& t : types)
    served += t.api_version() + "|" + t.kind + "|" + t.resource + (t.namespaced ? "|ns," : "|,");
  auto& now = aggregated_[key];
  if (now == served) return;
  now = served;
  if (types.empty())
    catalog_.remove_crd(key);
  else
    catalog_.set_crd(key, std::move(types));
}

Response Cluster::call(std::string method, std::string path, std::string content_type,
                       const json::object& body, std::string user, std::string agent,
                       std::map<std::string, std::string> query) {
  Request req;
  req.method = std::move(method);
  req.path = std::move(path);
  req.content_type = std::move(content_type);
  req.user = std::move(user);
  req.groups = {std::string(kSystemMasters)};
  req.user_agent = std::move(agent);
  req.query = std::move(query);
  req.body = json::serialize(body);
  return handle(req);
}

Cluster::~Cluster() {
  *alive_ = false;
  scheduler_.reset();
  controllers_.reset();
  for (auto& [id, w] : watches_) {
    w->done = true;
    store_.remove_watch(id);
  }
}

void Cluster::end_watches() {
  auto watches = std::move(watches_);
  watches_.clear();
  for (auto& [id, w] : watches) {
    store_.remove_watch(id);
    if (w->done) continue;
    w->done = true;
    w->sink->finish();
  }
}

bool Cluster::is_watch(const Request& req) {
  if (req.method != "GET") return false;
  auto it = req.query.find("watch");
  if (it != req.query.end() && truthy(it->second)) return true;
  return req.path.find("/watch/") != std::string::npos;
}

bool Cluster::is_write(const Request& req) {
  return req.method == "POST" || req.method == "PUT" || req.method == "PATCH" ||
         req.method == "DELETE";
}

Response Cluster::handle(const Request& req) {
  Handler h{*this, req};
  return h.handle();
}

}  // namespace planter::sim
