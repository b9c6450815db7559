// What a cluster serves, from its discovery documents, and the REST mapper over it: which
// resource and scope a group/version/kind maps to.
//
// The parsers are pure (tests feed them documents from ../shared/k8s-api); the fetching lives in
// Client, which prefers the aggregated document (apidiscovery.k8s.io/v2, one request each for
// /api and /apis) and falls back to the legacy per-group-version documents.
#pragma once

#include <boost/json/value.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace planter::kube {

struct ApiResource {
  std::string group;  // "" for the core group
  std::string version;
  std::string kind;
  std::string resource;  // the plural: "deployments"
  bool namespaced = false;
  bool has_status = false;  // serves the status subresource

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  // "/api/v1" or "/apis/apps/v1"
  std::string group_version_path() const;
  // The collection or object path: "/apis/apps/v1/namespaces/ns/deployments[/name]".
  std::string path(std::string_view ns, std::string_view name = "") const;
  bool operator==(const ApiResource&) const = default;
};

// The Accept header that asks for aggregated discovery and takes the legacy answer otherwise.
extern const char* const kAggregatedDiscoveryAccept;

// True when a response's Content-Type says it is an APIGroupDiscoveryList.
bool is_aggregated_discovery(std::string_view content_type);

// Reads an apidiscovery.k8s.io/v2 (or v2beta1) APIGroupDiscoveryList.
Result<std::vector<ApiResource>> parse_aggregated_discovery(const boost::json::value& doc);
// The same, from the document's text as `root` ("/api", "/apis") answered it; errors name the root.
Result<std::vector<ApiResource>> parse_aggregated_text(std::string_view root,
                                                       std::string_view text);
// Reads a legacy APIResourceList (the answer of /api/v1 or /apis/<g>/<v>).
Result<std::vector<ApiResource>> parse_resource_list(const boost::json::value& doc);
// The group-versions of a legacy APIGroupList (/apis) or APIVersions (/api): "apps/v1", "v1".
std::vector<std::string> parse_group_versions(const boost::json::value& doc);

// Thread-safe: replaced whole by discovery, read by every request. Mappers of clusters that
// serve the same resources share one table (a fleet's clusters mostly do: 5,000 of them would
// otherwise hold 5,000 copies).
class RestMapper {
 public:
  using Table = std::map<std::string, ApiResource, std::less<>>;  // "apps/v1|Deployment"
  void replace(std::vector<ApiResource> resources);
  void replace(std::shared_ptr<const Table> table);
  std::optional<ApiResource> find(std::string_view api_version, std::string_view kind) const;
  std::shared_ptr<const Table> table() const;

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const Table> by_gvk_;
};

// The table of a cluster that serves aggregated discovery, from its two documents (/api and
// /apis, as received). A process that talks to many clusters serving the same resources, or
// makes many clients of one cluster (the operator: one per Seed's slice), reads the same two
// documents over and over: the table of a pair already seen is handed out again, found by the
// documents' bytes (the last 16 pairs are kept), and only a pair not seen before is parsed.
Result<std::shared_ptr<const RestMapper::Table>> aggregated_table(std::string_view api,
                                                                  std::string_view apis);

}  // namespace planter::kube
