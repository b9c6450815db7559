#include "plan/apply_time_mutation.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "model/yaml.h"
#include "plan/jsonpath.h"

namespace planter {

namespace json = boost::json;

namespace {

std::string field(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string{};
}

// cli-utils writes paths as JSONPath from the root: `$.spec.x`; kubectl's form is `{.spec.x}`.
Result<std::string> kubectl_path(std::string_view path, std::string_view which) {
  if (!path.starts_with("$."))
    return Error{
        fmt::format("{} \"{}\" must start with $. (JSONPath from the object's root)", which, path)};
  std::string out = fmt::format("{{{}}}", path.substr(1));
  auto steps = parse_jsonpath(out);
  if (!steps) return Error{fmt::format("{} \"{}\": {}", which, path, steps.error().message)};
  return out;
}

}  // namespace

Result<std::vector<Substitution>> read_substitutions(const Object& target) {
  std::vector<Substitution> out;
  const json::string* text = target.annotation(kApplyTimeMutationAnnotation);
  if (!text) return out;
  auto docs = parse_yaml_stream(*text, kApplyTimeMutationAnnotation);
  if (!docs) return Error{docs.error().message};
  if (docs->size() != 1 || !docs->front().value.is_array())
    return Error{"the annotation must be a YAML list of substitutions"};
  const json::array& list = docs->front().value.get_array();
  for (size_t i = 0; i < list.size(); ++i) {
    auto bad = [i](std::string what) {
      return Error{fmt::format("substitution {}: {}", i + 1, what)};
    };
    if (!list[i].is_object()) return bad("not a mapping");
    const json::object& e = list[i].get_object();
    const json::value* ref_v = e.if_contains("sourceRef");
    if (!ref_v || !ref_v->is_object()) return bad("sourceRef (kind, name) is missing");
    const json::object& ref = ref_v->get_object();
    Substitution s;
    s.group = field(ref, "group");
    if (std::string av = field(ref, "apiVersion"); !av.empty())
      s.group = std::string(split_api_version(av).first);
    s.kind = field(ref, "kind");
    s.name = field(ref, "name");
    s.ns = field(ref, "namespace");
    if (s.kind.empty() || s.name.empty()) return bad("sourceRef needs kind and name");
    auto source = kubectl_path(field(e, "sourcePath"), "sourcePath");
    if (!source) return bad(source.error().message);
    auto target_path = kubectl_path(field(e, "targetPath"), "targetPath");
    if (!target_path) return bad(target_path.error().message);
    s.source_path = source.value();
    s.target_path = target_path.value();
    s.token = field(e, "token");
    std::vector<JsonPathStep> steps = parse_jsonpath(s.target_path).value();
    for (const JsonPathStep& step : steps)
      if (step.kind == JsonPathStep::Kind::kFilter)
        return bad("targetPath cannot hold a filter: planter writes there");
    if (!s.token.empty()) {
      const json::value* at = locate_jsonpath(target.body, steps);
      if (!at || !at->is_string() || at->get_string().find(s.token) == json::string::npos)
        return bad(fmt::format("the token \"{}\" is not in the string at targetPath {}", s.token,
                               s.target_path));
    }
    out.push_back(std::move(s));
  }
  return out;
}

Result<bool> substitute(json::object& body, const Substitution& s, const json::value& value) {
  auto steps = parse_jsonpath(s.target_path);
  if (!steps || steps->empty()) return Error{"targetPath " + s.target_path + " names no field"};
  json::value* cur = nullptr;  // null: at `body`
  for (size_t i = 0; i < steps->size(); ++i) {
    const JsonPathStep& step = (*steps)[i];
    bool last = i + 1 == steps->size();
    json::value* next = nullptr;
    if (step.kind == JsonPathStep::Kind::kField) {
      json::object* here = !cur ? &body : cur->if_object();
      if (!here)
        return Error{
            fmt::format("targetPath {}: .{} is not in a mapping", s.target_path, step.field)};
      if (last && s.token.empty()) {
        (*here)[step.field] = value;
        return true;
      }
      next = &(*here)[step.field];
      if (!last && next->is_null()) *next = json::object();
    } else {
      json::array* arr = cur ? cur->if_array() : nullptr;
      if (!arr || step.index >= arr->size())
        return Error{fmt::format("targetPath {}: no element [{}]", s.target_path, step.index)};
      next = &(*arr)[step.index];
      if (last && s.token.empty()) {
        *next = value;
        return true;
      }
    }
    cur = next;
  }
  // A token: replaced inside the string at the path.
  if (!cur || !cur->is_string())
    return Error{
        fmt::format("targetPath {} is not a string holding the token {}", s.target_path, s.token)};
  std::string text(cur->get_string());
  std::string with = jsonpath_text(value);
  for (size_t at = text.find(s.token); at != std::string::npos;
       at = text.find(s.token, at + with.size()))
    text.replace(at, s.token.size(), with);
  *cur = json::string(text);
  return true;
}

}  // namespace planter
