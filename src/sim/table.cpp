#include "sim/table.h"

#include <boost/json.hpp>
#include <cstdio>
#include <ctime>

#include "sim/json_access.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

std::optional<std::chrono::system_clock::time_point> parse_time(const std::string& s) {
  std::tm tm{};
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

// The first value a JSONPath reaches from `v`: a field, an index, every element, or a filter on
// a field's value, one step at a time; null when it reaches none.
const json::value* first_match(const json::value& v, std::string_view rest) {
  if (rest.empty()) return &v;
  if (rest.front() == '.') {
    rest.remove_prefix(1);
    size_t end = rest.find_first_of(".[");
    std::string_view field = rest.substr(0, end);
    std::string_view after = end == std::string_view::npos ? "" : rest.substr(end);
    if (field.empty()) return first_match(v, after);
    auto* f = v.is_object() ? v.as_object().if_contains(field) : nullptr;
    return f ? first_match(*f, after) : nullptr;
  }
  size_t close = rest.find(']');
  if (rest.front() != '[' || close == std::string_view::npos || !v.is_array()) return nullptr;
  std::string_view inside = rest.substr(1, close - 1);
  std::string_view after = rest.substr(close + 1);
  const json::array& a = v.as_array();
  if (inside == "*" || (inside.starts_with("?(@.") && inside.ends_with(")"))) {
    std::string_view key, want;
    if (inside != "*") {
      std::string_view cond = inside.substr(4, inside.size() - 5);
      size_t eq = cond.find("==");
      if (eq == std::string_view::npos) return nullptr;
      key = cond.substr(0, eq);
      want = cond.substr(eq + 2);
      if (want.size() >= 2 && (want.front() == '"' || want.front() == '\''))
        want = want.substr(1, want.size() - 2);
    }
    for (const json::value& e : a) {
      if (!key.empty()) {
        auto* f = e.is_object() ? e.as_object().if_contains(key) : nullptr;
        if (!f || !f->is_string() || f->as_string() != want) continue;
      }
      if (const json::value* found = first_match(e, after)) return found;
    }
    return nullptr;
  }
  char* end = nullptr;
  std::string n(inside);
  long i = std::strtol(n.c_str(), &end, 10);
  if (end == n.c_str() || *end) return nullptr;
  if (i < 0) i += static_cast<long>(a.size());
  if (i < 0 || static_cast<size_t>(i) >= a.size()) return nullptr;
  return first_match(a[static_cast<size_t>(i)], after);
}

json::value cell(const json::object& obj, const json::object& column,
                 std::chrono::system_clock::time_point now) {
  json::value v = printer_column_value(obj, string_at(column, "jsonPath"));
  std::string type = string_at(column, "type");
  if (v.is_null()) return v;
  if (type == "date") {
    if (!v.is_string()) return nullptr;
    auto t = parse_time(std::string(v.as_string()));
    if (!t) return v;
    return json::value(human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *t)));
  }
  if (type == "integer") {
    if (v.is_int64() || v.is_uint64()) return v;
    if (v.is_double()) return static_cast<int64_t>(v.as_double());
    return nullptr;
  }
  if (type == "number") return v.is_number() ? v : json::value(nullptr);
  if (type == "boolean") return v.is_bool() ? v : json::value(nullptr);
  if (v.is_string()) return v;
  return json::value(json::serialize(v));
}

}  // namespace

bool wants_table(std::string_view accept) {
  return accept.find("as=Table") != std::string_view::npos &&
         accept.find("g=meta.k8s.io") != std::string_view::npos;
}

json::value printer_column_value(const json::object& object, std::string_view path) {
  if (path.starts_with("{") && path.ends_with("}")) path = path.substr(1, path.size() - 2);
  if (!path.starts_with(".")) return nullptr;
  // The first field is looked up in the object itself, so that nothing is copied.
  path.remove_prefix(1);
  size_t end = path.find_first_of(".[");
  auto* first = object.if_contains(path.substr(0, end));
  if (!first) return nullptr;
  const json::value* found =
      first_match(*first, end == std::string_view::npos ? "" : path.substr(end));
  return found ? *found : json::value(nullptr);
}

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& text) {
  return parse_time(text);
}

std::string age_of(const std::string& timestamp, std::chrono::system_clock::time_point now) {
  auto t = parse_time(timestamp);
  if (!t) return "<unknown>";
  return human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

std::string human_duration(std::chrono::seconds d) {
  long s = static_cast<long>(d.count());
  if (s < -1) return "<invalid>";
  if (s < 0) s = 0;
  auto f = [](long a, const char* ua, long b, const char* ub) {
    return b == 0 ? std::to_string(a) + ua : std::to_string(a) + ua + std::to_string(b) + ub;
  };
  if (s < 120) return std::to_string(s) + "s";
  long m = s / 60;
  if (m < 10) return f(m, "m", s % 60, "s");
  if (m < 180) return std::to_string(m) + "m";
  long h = s / 3600;
  if (h < 8) return f(h, "h", m % 60, "m");
  if (h < 48) return std::to_string(h) + "h";
  if (h < 24 * 8) return f(h / 24, "d", h % 24, "h");
  if (h < 24 * 365 * 2) return std::to_string(h / 24) + "d";
  long y = h / (24 * 365);
  if (y < 8) return f(y, "y", (h / 24) % 365, "d");
  return std::to_string(y) + "y";
}

std::string render_rows(const std::vector<TableColumn>& columns,
                        const std::function<json::array(const json::object&)>& cells,
                        const std::vector<const json::object*>& objects,
                        std::string_view include_object, json::object list_metadata) {
  json::array defs;
  for (const auto& c : columns)
    defs.push_back({{"name", c.name},
                    {"type", c.type},
                    {"format", c.format},
                    {"description", c.description},
                    {"priority", c.priority}});
  json::array rows;
  for (const json::object* obj : objects) {
    json::object row{{"cells", cells(*obj)}};
    if (include_object == "Object") {
      row["object"] = *obj;
    } else if (include_object != "None") {
      json::object partial{{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}};
      if (const json::object* meta = object_at(*obj, "metadata")) partial["metadata"] = *meta;
      row["object"] = std::move(partial);
    }
    rows.push_back(std::move(row));
  }
  json::object table{{"kind", "Table"},
                     {"apiVersion", "meta.k8s.io/v1"},
                     {"metadata", std::move(list_metadata)},
                     {"columnDefinitions", std::move(defs)},
                     {"rows", std::move(rows)}};
  return json::serialize(table);
}

std::string render_table(const json::array& columns,
                         const std::vector<const json::object*>& objects,
                         std::string_view include_object, json::object list_metadata,
                         std::chrono::system_clock::time_point now) {
  std::vector<TableColumn> defs{
      {"Name", "string", "name", "Name must be unique within a namespace.", 0}};
  json::array cols = columns;
  if (cols.empty())
    cols.push_back(
        {{"name", "Age"}, {"type", "date"}, {"jsonPath", ".metadata.creationTimestamp"}});
  for (const json::value& c : cols) {
    if (!c.is_object()) continue;
    const json::object& co = c.as_object();
    TableColumn d{string_at(co, "name"), string_at(co, "type"), string_at(co, "format"),
                  string_at(co, "description"), 0};
    if (auto* p = co.if_contains("priority"); p && p->is_int64())
      d.priority = static_cast<int>(p->as_int64());
    defs.push_back(std::move(d));
  }
  auto cells = [&](const json::object& obj) {
    json::array out;
    out.push_back(json::value(meta_string(obj, "name")));
    for (const json::value& c : cols)
      if (c.is_object()) out.push_back(cell(obj, c.as_object(), now));
    return out;
  };
  return render_rows(defs, cells, objects, include_object, std::move(list_metadata));
}

}  // namespace planter::sim
