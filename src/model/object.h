// Kubernetes objects as planter sees them: a Boost.JSON body, its identity, and where it came from.
//
// An Object is a value type; copying it copies the body. Identity follows Kubernetes: the API
// group (not the version), kind, namespace and name; two apiVersions of one group name the same
// object.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace planter {

// Where an object was read: "seed.yaml:42", or "plugin 10-net.py" for objects a plugin made.
struct SourceLocation {
  std::string file;
  int line = 0;  // 1-based; 0 when unknown

  std::string str() const;
};

// apiVersion + kind + namespace + name. `ns` is empty for cluster-scoped objects.
struct ObjectRef {
  std::string api_version;
  std::string kind;
  std::string ns;
  std::string name;

  std::string_view group() const;    // "" for the core group
  std::string_view version() const;  // "v1"

  // The proof-of-concept ID: "apps/v1|Deployment|cnf|cnf".
  std::string id() const;
  // Version-free identity used for lookups and duplicate detection: "apps|Deployment|cnf|cnf".
  std::string key() const;
  // key() == other.key(), without building either.
  bool same_object(const ObjectRef& other) const {
    return name == other.name && kind == other.kind && ns == other.ns && group() == other.group();
  }
  // For people: "apps/v1 Deployment cnf/cnf" (or "v1 Namespace cnf").
  std::string display() const;
  // kubectl's short form: "Deployment/cnf/cnf" or "Namespace/cnf".
  std::string short_form() const;

  bool operator==(const ObjectRef&) const = default;
};

// Splits an apiVersion into group and version ("apps/v1" -> {"apps","v1"}, "v1" -> {"","v1"}).
std::pair<std::string_view, std::string_view> split_api_version(std::string_view api_version);

// The version-free key of a (group, kind, namespace, name) tuple; see ObjectRef::key().
std::string object_key(std::string_view group, std::string_view kind, std::string_view ns,
                       std::string_view name);

struct Object {
  boost::json::object body;
  ObjectRef ref;
  SourceLocation source;
  // What planter's built-in steps wrote into the body (stack policies), for people:
  // "spec.template.spec.tolerations: tenant=gold:NoSchedule".
  std::vector<std::string> mutations;

  // metadata.annotations[key] / metadata.labels[key] when present and a string; else nullptr.
  const boost::json::string* annotation(std::string_view key) const;
  const boost::json::object* labels() const;
  const boost::json::object* annotations() const;

  // Sets metadata.annotations[key] = value, creating what is missing.
  void set_annotation(std::string_view key, std::string_view value);
  // Sets metadata.namespace and ref.ns.
  void set_namespace(std::string_view ns);

  // Convenience: "seed.yaml:42" and "apps/v1 Deployment cnf/cnf".
  std::string where() const { return source.str(); }
  std::string display() const { return ref.display(); }
};

// Follows a path of object keys; nullptr when any step is missing or not an object.
const boost::json::value* find_path(const boost::json::object& o,
                                    std::initializer_list<std::string_view> path);
// o[key] when `o` is given and that is a string; else nullptr. With Object::annotations(), reads
// several annotations for the price of one walk to them.
const boost::json::string* string_in(const boost::json::object* o, std::string_view key);
// Like find_path, but only returns strings.
const boost::json::string* find_string(const boost::json::object& o,
                                       std::initializer_list<std::string_view> path);
// The string at `path`, copied; "" when any step is missing or it is not a string.
std::string string_field(const boost::json::object& o,
                         std::initializer_list<std::string_view> path);

}  // namespace planter
