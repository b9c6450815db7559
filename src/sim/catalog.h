// The API a simulated cluster serves: its resource types (built-in GA group-versions plus the
// kinds of established CRDs) and the discovery and OpenAPI v3 documents that describe them.
//
// Not thread-safe: a Catalog belongs to one cluster and is used from the server's event loop.
// Documents are rebuilt lazily after a change and cached until the next one.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace planter::sim {

// One resource of one group-version, as discovery describes it.
struct ResourceType {
  std::string group;     // "" for the core group
  std::string version;   // "v1"
  std::string resource;  // plural, "deployments"
  std::string kind;      // "Deployment"
  std::string singular;  // "deployment"
  bool namespaced = true;
  std::vector<std::string> verbs;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool has_status = false;
  bool has_scale = false;
  bool custom = false;                 // defined by a CRD
  std::string crd_name;                // "prometheuses.monitoring.coreos.com" when custom
  boost::json::value schema;           // a CRD version's openAPIV3Schema; null for built-ins
  boost::json::array printer_columns;  // a CRD version's additionalPrinterColumns

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  // Version-free storage key: every version of a resource shares its objects.
  std::string storage_key() const { return group + "/" + resource; }
  // kubectl's name for the resource in messages: "deployments.apps", "configmaps".
  std::string qualified() const { return group.empty() ? resource : resource + "." + group; }
  bool allows(std::string_view verb) const;
};

class Catalog {
 public:
  // The built-in API of a kube-apiserver 1.<api_minor> (from src/sim/builtin_discovery.inc, a
  // 1.37 server's): 37 serves its GA versions and the gang API's scheduling.k8s.io/v1beta1; 36
  // serves that API as v1alpha2 and resource.k8s.io/v1 without DeviceTaintRule (beta then); 33
  // serves neither resource.k8s.io (DRA's v1 is 1.34's) nor the gang API.
  static Catalog builtin(int api_minor = 37);

  const ResourceType* find(std::string_view group, std::string_view version,
                           std::string_view resource) const;
  // The preferred-version type of a (group, kind), any version when none is preferred.
  const ResourceType* find_kind(std::string_view group, std::string_view kind) const;
  const ResourceType* find_kind(std::string_view group, std::string_view version,
                                std::string_view kind) const;
  // Every served resource type (all versions), core group first.
  std::vector<const ResourceType*> all() const;
  // Every version of the resource with this storage key.
  std::vector<const ResourceType*> versions_of(std::string_view storage_key) const;

  // Serves (or stops serving) the kinds of one established CRD; replaces what it served before.
  void set_crd(const std::string& crd_name, std::vector<ResourceType> versions);
  void remove_crd(const std::string& crd_name);
  bool is_builtin_group(std::string_view group) const;

  // Discovery documents, serialized. Empty string when the group or version is not served.
  const std::string& api_versions() const;  // GET /api
  std::string resource_list(std::string_view group, std::string_view version) const;
  const std::string& group_list() const;                     // GET /apis
  std::string group_document(std::string_view group) const;  // GET /apis/<g>
  const std::string& aggregated(bool core) const;            // v2 APIGroupDiscoveryList

  // OpenAPI v3: the index (/openapi/v3) and one document per group-version path ("apis/apps/v1",
  // "api/v1"). The empty string when the path is not served.
  const std::string& openapi_index() const;
  std::string openapi_document(std::string_view gv_path) const;

 private:
  struct GroupVersion {
    std::string version;
    std::vector<ResourceType> resources;
    boost::json::value raw_list;  // built-ins: the upstream APIResourceList, served verbatim
  };
  struct Group {
    std::string name;
    std::string preferred;
    std::vector<GroupVersion> versions;  // in priority order
    bool builtin = false;
  };

  Group* group(std::string_view name);
  const Group* group(std::string_view name) const;
  const GroupVersion* group_version(std::string_view group, std::string_view version) const;
  void changed();
  boost::json::object resource_list_json(const Group& g, const GroupVersion& v) const;

  Group core_;
  std::vector<Group> groups_;  // built-in groups in /apis order, then CRD groups
  std::map<std::string, std::vector<ResourceType>, std::less<>> crds_;

  struct Cache;
  std::shared_ptr<Cache> cache_;
};

// Kubernetes version priority: GA before beta before alpha, higher numbers first, then others
// alphabetically ("v2" > "v1" > "v1beta2" > "v1beta1" > "v1alpha1" > "foo").
bool version_before(std::string_view a, std::string_view b);

}  // namespace planter::sim
