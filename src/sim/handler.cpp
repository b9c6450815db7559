#include "sim/handler.h"

#include <boost/json/serialize.hpp>
#include <cctype>

#include "model/yaml.h"
#include "sim/audit.h"
#include "sim/json_access.h"

namespace planter::sim {

json::object& meta_of(json::object& o) {
  auto& m = o["metadata"];
  if (!m.is_object()) m = json::object{};
  return m.as_object();
}

const json::object* meta_of(const json::object& o) {
  auto* m = o.if_contains("metadata");
  return m && m->is_object() ? &m->as_object() : nullptr;
}

bool has_finalizers(const json::object& o) {
  const json::object* m = meta_of(o);
  auto* f = m ? m->if_contains("finalizers") : nullptr;
  return f && f->is_array() && !f->as_array().empty();
}

std::string object_id(const json::object& o) {
  return audit_id(string_at(o, "apiVersion"), string_at(o, "kind"), meta_string(o, "namespace"),
                  meta_string(o, "name"));
}

// The object as JSON, with apiVersion as the client asked for it (every version of a resource
// shares one stored object; CRD versions convert with strategy None).
std::string serialize_as(const json::object& obj, std::string_view api_version) {
  if (string_at(obj, "apiVersion") == api_version) return json::serialize(obj);
  json::object copy = obj;
  copy["apiVersion"] = api_version;
  return json::serialize(copy);
}

// The first document of a YAML (or JSON) body, which must be a mapping; copied out of the
// parser's arena.
Result<json::object> yaml_object(std::string_view body) {
  auto docs = parse_yaml_stream(body, "body");
  if (!docs) return Error{docs.error().message};
  if (docs->empty() || !docs->front().value.is_object())
    return Error{"the body is not a YAML object"};
  json::value copy(docs->front().value, json::storage_ptr());
  return std::move(copy.as_object());
}

// ---- Status objects ----

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The default field manager: the user agent up to its first '/', as the apiserver derives it.
std::string default_manager(const Request& req) {
  std::string ua = req.user_agent.substr(0, req.user_agent.find('/'));
  return ua.empty() ? "unknown" : ua;
}

std::string query(const Request& req, const std::string& key) {
  auto it = req.query.find(key);
  return it == req.query.end() ? std::string() : it->second;
}

// Go's strconv.ParseBool, which the apiserver uses for boolean query parameters.
bool truthy(const std::string& v) {
  return v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True";
}

}  // namespace planter::sim
