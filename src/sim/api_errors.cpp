#include "sim/api_errors.h"

#include <boost/json/serialize.hpp>

namespace planter::sim {

namespace json = boost::json;

Response api_status(int code, std::string_view reason, std::string message, json::object details) {
  json::object s{{"kind", "Status"},
                 {"apiVersion", "v1"},
                 {"metadata", json::object{}},
                 {"status", code < 400 ? "Success" : "Failure"},
                 {"message", std::move(message)},
                 {"reason", reason},
                 {"details", std::move(details)},
                 {"code", code}};
  if (code < 400) {
    s.erase("message");
    s.erase("reason");
  }
  return Response{code, "application/json", json::serialize(s), {}};
}

json::object details_for(const ResourceType& t, std::string_view name) {
  json::object d{{"name", name}, {"kind", t.resource}};
  if (!t.group.empty()) d["group"] = t.group;
  return d;
}

Response not_found(const ResourceType& t, std::string_view name) {
  return api_status(404, "NotFound", t.qualified() + " \"" + std::string(name) + "\" not found",
                    details_for(t, name));
}

Response namespace_not_found(std::string_view ns) {
  return api_status(404, "NotFound", "namespaces \"" + std::string(ns) + "\" not found",
                    {{"name", ns}, {"kind", "namespaces"}});
}

Response bad_request(std::string message) {
  return api_status(400, "BadRequest", std::move(message));
}

Response page_not_found() {
  return api_status(404, "NotFound", "the server could not find the requested resource");
}

Response method_not_allowed() {
  return api_status(405, "MethodNotAllowed",
                    "the server does not allow this method on the requested resource");
}

Response conflict(const ResourceType& t, std::string_view name) {
  return api_status(409, "Conflict",
                    "Operation cannot be fulfilled on " + t.qualified() + " \"" +
                        std::string(name) +
                        "\": the object has been modified; please apply your changes to the latest "
                        "version and try again",
                    details_for(t, name));
}

Response invalid(const ResourceType& t, std::string_view name, std::vector<Cause> causes) {
  std::string message = t.kind + (t.group.empty() ? "" : "." + t.group) + " \"" +
                        std::string(name) + "\" is invalid: ";
  json::array arr;
  for (size_t i = 0; i < causes.size(); ++i) {
    if (i) message += ", ";
    message += causes[i].field + ": " + causes[i].message;
    arr.push_back(
        {{"reason", causes[i].type}, {"message", causes[i].message}, {"field", causes[i].field}});
  }
  json::object d = details_for(t, name);
  d["kind"] = t.kind;
  d["causes"] = std::move(arr);
  return api_status(422, "Invalid", std::move(message), std::move(d));
}

}  // namespace planter::sim
