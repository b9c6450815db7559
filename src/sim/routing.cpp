#include <fmt/format.h>

#include <boost/json/serialize.hpp>

#include "model/strings.h"
#include "sim/handler.h"
#include "sim/protobuf.h"

namespace planter::sim {

namespace {

constexpr std::string_view kAggregatedMedia =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

}  // namespace

// Parses "/api/v1/..." and "/apis/<g>/<v>/...". Returns nullopt when the path is not a
// resource path (discovery and friends are handled before).
std::optional<Response> Handler::parse_target(Cluster::Target& t) {
  std::vector<std::string_view> segs;
  for (std::string_view s : split(std::string_view(req.path).substr(1), '/'))
    if (!s.empty()) segs.push_back(s);
  std::string_view group, version;
  size_t i;
  if (segs.size() >= 3 && segs[0] == "api") {
    version = segs[1];
    i = 2;
  } else if (segs.size() >= 4 && segs[0] == "apis") {
    group = segs[1];
    version = segs[2];
    i = 3;
  } else {
    return page_not_found();
  }
  if (segs[i] == "watch") {
    t.watch = true;
    ++i;
    if (i >= segs.size()) return page_not_found();
  }
  std::vector<std::string_view> rest(segs.begin() + static_cast<std::ptrdiff_t>(i), segs.end());
  if (rest.size() >= 3 && rest[0] == "namespaces" &&
      !(rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize"))) {
    t.ns = std::string(rest[1]);
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3) return page_not_found();
  t.type = c.catalog_.find(group, version, rest[0]);
  if (!t.type) return page_not_found();
  if (!t.type->namespaced && !t.ns.empty()) return page_not_found();
  if (rest.size() >= 2) t.name = std::string(rest[1]);
  if (rest.size() == 3) {
    t.subresource = std::string(rest[2]);
    bool known =
        (t.subresource == "status" && t.type->has_status) ||
        (t.subresource == "scale" && t.type->has_scale) ||
        (t.subresource == "finalize" && t.type->kind == "Namespace") ||
        (t.type->kind == "Pod" && t.type->group.empty() &&
         (t.subresource == "binding" || t.subresource == "log" || t.subresource == "exec" ||
          t.subresource == "attach" || t.subresource == "portforward"));
    if (!known) return page_not_found();
  }
  return std::nullopt;
}

Response Handler::handle() {
  const std::string& p = req.path;
  if (p.empty() || p.front() != '/') return page_not_found();  // `*`, or nothing (found by fuzzing)
  if (p == "/version" || p == "/version/") {
    return Response{200,
                    "application/json",
                    json::serialize(json::object{
                        {"major", "1"},
                        {"minor", std::to_string(c.options().api_minor)},
                        {"gitVersion", fmt::format("v1.{}.0-planter-sim", c.options().api_minor)},
                        {"gitCommit", "planter-sim"},
                        {"gitTreeState", "clean"},
                        {"buildDate", "2026-01-01T00:00:00Z"},
                        {"goVersion", "none"},
                        {"compiler", "planter"},
                        {"platform", "linux/amd64"}}),
                    {}};
  }
  if (p == "/healthz" || p == "/readyz" || p == "/livez" || p.starts_with("/healthz/") ||
      p.starts_with("/readyz/") || p.starts_with("/livez/"))
    return Response{200, "text/plain; charset=utf-8", "ok", {}};
  bool aggregated = req.accept.find("as=APIGroupDiscoveryList") != std::string::npos &&
                    req.accept.find("v=v2") != std::string::npos;
  if (p == "/api" || p == "/api/") {
    if (aggregated)
      return Response{200, std::string(kAggregatedMedia), c.catalog_.aggregated(true), {}};
    return Response{200, "application/json", c.catalog_.api_versions(), {}};
  }
  if (p == "/apis" || p == "/apis/") {
    if (aggregated)
      return Response{200, std::string(kAggregatedMedia), c.catalog_.aggregated(false), {}};
    return Response{200, "application/json", c.catalog_.group_list(), {}};
  }
  if (p == "/openapi/v2" || p == "/openapi/v2/") {
    if (req.accept.find("protobuf") != std::string::npos)
      return Response{200,
                      "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
                      empty_openapi_v2_protobuf(),
                      {}};
    return Response{
        200,
        "application/json",
        R"({"swagger":"2.0","info":{"title":"Kubernetes","version":"v1.32.0"},"paths":{},"definitions":{}})",
        {}};
  }
  if (p == "/openapi/v3" || p == "/openapi/v3/")
    return Response{200, "application/json", c.catalog_.openapi_index(), {}};
  if (p.starts_with("/openapi/v3/")) {
    std::string doc = c.catalog_.openapi_document(std::string_view(p).substr(12));
    if (doc.empty()) return page_not_found();
    return Response{200, "application/json", std::move(doc), {}};
  }
  // Discovery of one group or group-version.
  {
    std::vector<std::string_view> segs;
    for (std::string_view s : split(std::string_view(p).substr(1), '/'))
      if (!s.empty()) segs.push_back(s);
    if (segs.size() == 2 && segs[0] == "api") {
      std::string list = c.catalog_.resource_list("", segs[1]);
      if (list.empty()) return page_not_found();
      return Response{200, "application/json", std::move(list), {}};
    }
    if (segs.size() == 2 && segs[0] == "apis") {
      std::string doc = c.catalog_.group_document(segs[1]);
      if (doc.empty()) return page_not_found();
      return Response{200, "application/json", std::move(doc), {}};
    }
    if (segs.size() == 3 && segs[0] == "apis") {
      std::string list = c.catalog_.resource_list(segs[1], segs[2]);
      if (list.empty()) return page_not_found();
      return Response{200, "application/json", std::move(list), {}};
    }
  }
  Cluster::Target t;
  if (auto err = parse_target(t)) return *err;
  if (t.watch || truthy(query(req, "watch")))
    return bad_request("watch requests need a streaming connection");
  // Every authenticated user may ask who it is (kube-apiserver's bootstrap ClusterRole
  // system:basic-user grants creating SelfSubjectReviews to system:authenticated): `kubectl auth
  // whoami`. Nothing is stored.
  if (req.method == "POST" && t.name.empty() && t.type->group == "authentication.k8s.io" &&
      t.type->kind == "SelfSubjectReview")
    return self_subject_review();
  if (auto denied = authorize(t, verb_of(t))) return *denied;
  const ResourceType& type = *t.type;
  if (t.name.empty()) {
    if (req.method == "GET") return type.allows("list") ? list(t) : method_not_allowed();
    if (req.method == "POST") {
      if (type.namespaced && t.ns.empty()) return method_not_allowed();
      if (type.group.empty() && type.kind == "Binding") return bind_pod(t);
      return type.allows("create") ? create(t) : method_not_allowed();
    }
    if (req.method == "DELETE")
      return type.allows("deletecollection") ? delete_collection(t) : method_not_allowed();
    return method_not_allowed();
  }
  if (type.namespaced && t.ns.empty()) return page_not_found();
  if (t.subresource == "log" || t.subresource == "exec" || t.subresource == "attach" ||
      t.subresource == "portforward") {
    if (req.method == "GET" || (req.method == "POST" && t.subresource != "log"))
      return pod_subresource(t);
    return method_not_allowed();
  }
  if (req.method == "GET") return type.allows("get") ? get(t) : method_not_allowed();
  if (req.method == "PUT") return type.allows("update") ? update(t) : method_not_allowed();
  if (req.method == "PATCH") return type.allows("patch") ? patch(t) : method_not_allowed();
  if (req.method == "POST" && t.subresource == "binding") return bind_pod(t);
  if (req.method == "DELETE" && t.subresource.empty())
    return type.allows("delete") ? remove(t) : method_not_allowed();
  return method_not_allowed();
}

}  // namespace planter::sim
