#include "plan/cluster_tolerations.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "model/names.h"

namespace planter {

namespace json = boost::json;

namespace {

// docs/limits.md: the most tolerations one choice lists.
constexpr size_t kMaxTolerations = 64;

Result<fit::ClusterToleration> read_toleration(const json::value& v, size_t i) {
  if (!v.is_object()) return Error{fmt::format("[{}] is not an object", i)};
  fit::ClusterToleration t;
  for (const auto& [k, value] : v.get_object()) {
    if (k == "key" || k == "operator" || k == "value" || k == "effect") {
      if (!value.is_string()) return Error{fmt::format("[{}].{} must be a string", i, k)};
      (k == "key"        ? t.key
       : k == "operator" ? t.op
       : k == "value"    ? t.value
                         : t.effect) = std::string(value.get_string());
    } else if (k == "tolerationSeconds") {
      if (!value.is_int64() || value.get_int64() < 0)
        return Error{
            fmt::format("[{}].tolerationSeconds must be a whole number of seconds, 0 or "
                        "more",
                        i)};
      t.seconds = value.get_int64();
    } else {
      return Error{fmt::format(
          "[{}].{}: unknown field (known: key, operator, value, effect, tolerationSeconds)", i, k)};
    }
  }
  if (t.op != "Equal" && t.op != "Exists")
    return Error{fmt::format("[{}].operator \"{}\" is neither Equal nor Exists", i, t.op)};
  if (t.op == "Exists" && !t.value.empty())
    return Error{fmt::format("[{}].value must be empty when the operator is Exists", i)};
  if (t.key.empty() && t.op != "Exists")
    return Error{
        fmt::format("[{}]: an empty key tolerates every taint only with operator Exists", i)};
  if (!t.key.empty())
    if (std::string why = qualified_name_problem(t.key); !why.empty())
      return Error{fmt::format("[{}].key \"{}\" is not a label key: {}", i, t.key, why)};
  if (!t.effect.empty() && t.effect != "NoSelect" && t.effect != "NoSelectIfNew" &&
      t.effect != "PreferNoSelect")
    return Error{fmt::format("[{}].effect \"{}\" is not NoSelect, NoSelectIfNew or PreferNoSelect",
                             i, t.effect)};
  return t;
}

}  // namespace

Result<std::vector<fit::ClusterToleration>> parse_cluster_tolerations(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_array())
    return Error{
        "not a JSON list of tolerations, e.g. [{\"key\": \"maintenance\", \"operator\": "
        "\"Exists\"}]"};
  if (v.get_array().size() > kMaxTolerations)
    return Error{fmt::format("{} tolerations; at most {}", v.get_array().size(), kMaxTolerations)};
  std::vector<fit::ClusterToleration> out;
  for (size_t i = 0; i < v.get_array().size(); ++i) {
    auto t = read_toleration(v.get_array()[i], i);
    if (!t) return t.error();
    out.push_back(std::move(*t));
  }
  return out;
}

std::string cluster_tolerations_annotation(const std::vector<fit::ClusterToleration>& tolerations) {
  json::array out;
  for (const fit::ClusterToleration& t : tolerations) {
    json::object o{{"key", t.key}, {"operator", t.op}, {"value", t.value}, {"effect", t.effect}};
    if (t.seconds) o["tolerationSeconds"] = *t.seconds;
    out.push_back(std::move(o));
  }
  return json::serialize(out);
}

}  // namespace planter
