#include "plan/cluster_preferences.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "model/names.h"

namespace planter {

namespace json = boost::json;

namespace {

// docs/limits.md: the most terms one choice lists.
constexpr size_t kMaxTerms = 16;

Result<fit::ClusterPreference> read_term(const json::value& v, size_t i) {
  if (!v.is_object()) return Error{fmt::format("[{}] is not an object", i)};
  const json::object& o = v.get_object();
  fit::ClusterPreference p;
  std::string order;
  for (const auto& [k, value] : o) {
    if (k == "weight") {
      if (!value.is_int64() || value.get_int64() < -100 || value.get_int64() > 100 ||
          value.get_int64() == 0)
        return Error{fmt::format("[{}].weight must be a whole number from -100 to 100, not 0", i)};
      p.weight = value.get_int64();
    } else if (k == "selector" || k == "property" || k == "order") {
      if (!value.is_string()) return Error{fmt::format("[{}].{} must be a string", i, k)};
      std::string text(value.get_string());
      if (k == "selector") {
        auto sel = LabelSelector::parse(text);
        if (!sel) return Error{fmt::format("[{}].selector: {}", i, sel.error().message)};
        p.selector = std::move(sel.value());
        p.text = text;
      } else if (k == "property") {
        p.property = text;
      } else {
        order = text;
      }
    } else {
      return Error{
          fmt::format("[{}].{}: unknown field (known: weight, selector, property, order)", i, k)};
    }
  }
  if (p.weight == 0) return Error{fmt::format("[{}] needs a weight", i)};
  if (p.selector.has_value() == !p.property.empty())
    return Error{fmt::format("[{}] needs either a selector or a property", i)};
  if (!p.property.empty()) {
    bool label = p.property.starts_with("label:");
    bool profile = p.property.starts_with("property:");
    if (label) {
      if (std::string why = qualified_name_problem(std::string_view(p.property).substr(6));
          !why.empty())
        return Error{fmt::format("[{}].property \"{}\": the label key {}", i, p.property, why)};
    } else if (profile) {
      // KEP-4322's property names are qualified names, as label keys are.
      if (std::string why = qualified_name_problem(std::string_view(p.property).substr(9));
          !why.empty())
        return Error{fmt::format("[{}].property \"{}\": the property name {}", i, p.property, why)};
    } else if (p.property != "cpu" && p.property != "memory" && p.property != "nodes") {
      return Error{
          fmt::format("[{}].property \"{}\" is not cpu, memory, nodes, label:KEY or property:NAME",
                      i, p.property)};
    }
    if (!order.empty() && order != "Ascending" && order != "Descending")
      return Error{fmt::format("[{}].order \"{}\" is neither Ascending nor Descending", i, order)};
    p.ascending = order == "Ascending";
    p.text = (label     ? p.property.substr(6)
              : profile ? p.property.substr(9)
                        : p.property) +
             (p.ascending ? " (Ascending)" : "");
  } else if (!order.empty()) {
    return Error{fmt::format("[{}].order sorts a property, and the term has none", i)};
  }
  return p;
}

}  // namespace

Result<std::vector<fit::ClusterPreference>> parse_cluster_preferences(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_array())
    return Error{"not a JSON list of terms, e.g. [{\"weight\": 50, \"selector\": \"region=eu\"}]"};
  if (v.get_array().size() > kMaxTerms)
    return Error{fmt::format("{} terms; at most {}", v.get_array().size(), kMaxTerms)};
  std::vector<fit::ClusterPreference> out;
  for (size_t i = 0; i < v.get_array().size(); ++i) {
    auto p = read_term(v.get_array()[i], i);
    if (!p) return p.error();
    out.push_back(std::move(*p));
  }
  return out;
}

std::string cluster_preferences_annotation(const std::vector<fit::ClusterPreference>& terms) {
  json::array out;
  for (const fit::ClusterPreference& p : terms) {
    json::object o{{"weight", p.weight}};
    if (p.selector)
      o["selector"] = p.text;
    else {
      o["property"] = p.property;
      o["order"] = p.ascending ? "Ascending" : "Descending";
    }
    out.push_back(std::move(o));
  }
  return json::serialize(out);
}

}  // namespace planter
