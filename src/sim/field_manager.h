// Field ownership for server-side apply: `metadata.managedFields` kept the way a kube-apiserver
// keeps it (FieldsV1 sets per manager and operation), apply with conflicts and force, and the
// ownership that plain writes (create, update, patch) take.
//
// Without the built-in types' schemas, list topology is inferred: a list whose items all carry
// their Kubernetes list-map keys (containers by name, ports by containerPort/port and protocol,
// volumeMounts by mountPath, anything by a unique name) is a map; every other list is atomic.
#pragma once

#include <boost/json/object.hpp>
#include <set>
#include <string>
#include <vector>

namespace planter::sim {

using FieldPath = std::vector<std::string>;  // {"f:spec", "f:containers", "k:{\"name\":\"a\"}"}
using FieldSet = std::set<FieldPath>;

// Which part of an object a write may own: the main resource (status excluded when the kind
// has a status subresource) or the status subresource.
enum class FieldScope { kAll, kWithoutStatus, kStatusOnly };

struct ApplyConflict {
  std::string manager;
  std::string api_version;
  std::string field;  // ".spec.replicas"
};

struct WriteContext {
  std::string manager;
  std::string api_version;  // of the request: "apps/v1"
  std::string time;         // RFC 3339, seconds
  std::string subresource;  // "" or "status"
  FieldScope scope = FieldScope::kAll;
};

// Server-side apply of `applied` onto `live` (nullptr: the object does not exist). On success
// returns an empty conflict list and sets `result` (managedFields included); on conflicts
// without `force` returns them and leaves `result` alone.
std::vector<ApplyConflict> server_side_apply(const boost::json::object* live,
                                             const boost::json::object& applied, bool force,
                                             const WriteContext& ctx, boost::json::object& result);

// After a create, update or patch: gives `ctx.manager` (operation Update) the fields it changed
// from `old` (nullptr for a create), takes them from other managers, drops fields that are gone,
// and writes `updated`'s managedFields.
void record_update(const boost::json::object* old, boost::json::object& updated,
                   const WriteContext& ctx);

// Whether the managedFields of `a` and `b` name the same owners of the same fields: they may
// differ in the entries' timestamps only (kube-apiserver does not write such a change).
bool same_owners(const boost::json::object& a, const boost::json::object& b);

// For messages: ".spec.containers[name=\"app\"].image".
std::string display_path(const FieldPath& path);

}  // namespace planter::sim
