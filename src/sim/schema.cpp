#include "sim/schema.h"

#include <re2/re2.h>

#include <boost/json.hpp>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string_view>

#include "cel/program.h"
#include "sim/json_access.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

// What one pattern may take to compile and match (RE2's budget; its DFA falls back to a slower
// linear engine when the budget is spent, it never goes exponential).
constexpr int64_t kPatternMemory = 1 << 20;

const json::object* schema_object(const json::value* s) {
  return s ? s->if_object() : nullptr;
}

std::string type_of(const json::object& s) {
  const json::value* t = s.if_contains("type");
  return t && t->is_string() ? std::string(t->get_string()) : std::string{};
}

bool flag(const json::object& s, std::string_view key) {
  const json::value* v = s.if_contains(key);
  return v && v->is_bool() && v->get_bool();
}

// A schema's number (a bound), compared as a double: a count is exact in one up to 2^53, and a
// bound of 1e50 converted to an integer would be undefined (found by crd_schema_fuzz).
bool number_at(const json::object& s, std::string_view key, double& out) {
  const json::value* v = s.if_contains(key);
  if (!v || !v->is_number()) return false;
  out = v->to_number<double>();
  return true;
}

// The schema of a property of an object: `properties[key]`, else `additionalProperties`.
const json::object* child_schema(const json::object& s, std::string_view key) {
  if (const json::object* props = schema_object(s.if_contains("properties")))
    if (const json::object* c = schema_object(props->if_contains(key))) return c;
  return schema_object(s.if_contains("additionalProperties"));
}

// How kube-apiserver prints a value in "Invalid value: …": strings quoted, numbers bare, and the
// JSON type's name for objects and arrays.
std::string shown(const json::value& v) {
  if (v.is_string()) return json::serialize(v);
  if (v.is_object()) return "\"object\"";
  if (v.is_array()) return "\"array\"";
  if (v.is_null()) return "\"null\"";
  return json::serialize(v);
}

std::string json_type(const json::value& v) {
  if (v.is_string()) return "string";
  if (v.is_bool()) return "boolean";
  if (v.is_null()) return "null";
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_double()) return std::floor(v.get_double()) == v.get_double() ? "integer" : "number";
  return "integer";
}

std::string number_text(double d) {
  if (std::floor(d) == d && std::fabs(d) < 1e15) return std::to_string(static_cast<int64_t>(d));
  return json::serialize(json::value(d));
}

size_t runes(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xc0) != 0x80;
  return n;
}

// The top level's metadata, apiVersion and kind are kube-apiserver's, whatever the schema says.
bool meta_field(bool root, std::string_view key) {
  return root && (key == "metadata" || key == "apiVersion" || key == "kind");
}

void defaults(const json::object& s, json::value& v, bool root = false) {
  if (json::object* o = v.if_object()) {
    // Nulls the schema does not allow are dropped before defaulting, as kube-apiserver prunes them.
    std::vector<std::string> nulls;
    for (auto& kv : *o) {
      if (meta_field(root, kv.key())) continue;
      const json::object* cs = child_schema(s, kv.key());
      if (kv.value().is_null() && cs && !flag(*cs, "nullable")) nulls.emplace_back(kv.key());
    }
    for (const std::string& k : nulls) o->erase(k);
    if (const json::object* props = schema_object(s.if_contains("properties")))
      for (const auto& p : *props) {
        const json::object* cs = p.value().if_object();
        if (!cs || o->contains(p.key()) || meta_field(root, p.key())) continue;
        if (const json::value* d = cs->if_contains("default")) o->emplace(p.key(), *d);
      }
    for (auto& kv : *o)
      if (const json::object* cs = child_schema(s, kv.key()); cs && !meta_field(root, kv.key()))
        defaults(*cs, kv.value());
  } else if (json::array* a = v.if_array()) {
    if (const json::object* items = schema_object(s.if_contains("items")))
      for (json::value& item : *a) defaults(*items, item);
  }
}

class Validator {
 public:
  std::vector<SchemaViolation> out;

  // A schema's pattern, compiled once per validation (a list of strings shares its items').
  const RE2& pattern(std::string_view text) {
    auto it = patterns_.find(text);
    if (it != patterns_.end()) return *it->second;
    RE2::Options options;
    options.set_log_errors(false);
    options.set_max_mem(kPatternMemory);
    auto re = std::make_unique<RE2>(re2::StringPiece(text.data(), text.size()), options);
    return *patterns_.emplace(text, std::move(re)).first->second;
  }

  // `old`: the value at the same place in the object before an update, when there is one that
  // corresponds (for transition rules).
  void check(const json::object& s, const json::value& v, const std::string& path,
             const json::value* old = nullptr) {
    if (v.is_null()) {
      if (!flag(s, "nullable") && !type_of(s).empty()) type_error(path, v, type_of(s));
      return;
    }
    std::string type = type_of(s);
    if (flag(s, "x-kubernetes-int-or-string")) {
      if (!v.is_string() && json_type(v) != "integer") type_error(path, v, "integer or string");
    } else if (!type.empty() && !matches_type(type, v)) {
      return type_error(path, v, type);
    }
    if (const json::value* e = s.if_contains("enum"); e && e->is_array()) {
      bool found = false;
      for (const json::value& option : e->get_array()) found = found || option == v;
      if (!found) {
        std::string list;
        for (const json::value& option : e->get_array())
          list += (list.empty() ? "" : ", ") + json::serialize(option);
        add("FieldValueNotSupported", path,
            "Unsupported value: " + json::serialize(v) + ": supported values: " + list);
      }
    }
    if (v.is_string()) strings(s, v, path);
    if (v.is_number()) numbers(s, v, path);
    if (const json::array* a = v.if_array()) arrays(s, *a, path, old ? old->if_array() : nullptr);
    if (const json::object* o = v.if_object())
      objects(s, *o, path, old ? old->if_object() : nullptr);
    if (const json::value* rules = s.if_contains("x-kubernetes-validations");
        rules && rules->is_array())
      validation_rules(rules->get_array(), type.empty() ? json_type(v) : type, v, path, old);
  }

 private:
  static bool matches_type(const std::string& type, const json::value& v) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "boolean") return v.is_bool();
    if (type == "integer") return json_type(v) == "integer";
    if (type == "number") return v.is_number();
    return true;
  }

  void add(std::string reason, const std::string& path, std::string message) {
    out.push_back({std::move(reason), path, std::move(message)});
  }

  void type_error(const std::string& path, const json::value& v, const std::string& type) {
    add("FieldValueTypeInvalid", path,
        "Invalid value: " + shown(v) + ": " + path + " in body must be of type " + type + ": \"" +
            json_type(v) + "\"");
  }

  void strings(const json::object& s, const json::value& v, const std::string& path) {
    std::string_view text = v.get_string();
    double n = 0;
    if (number_at(s, "minLength", n) && static_cast<double>(runes(text)) < n)
      add("FieldValueInvalid", path,
          "Invalid value: " + shown(v) + ": " + path + " in body should be at least " +
              number_text(n) + " chars long");
    if (number_at(s, "maxLength", n) && static_cast<double>(runes(text)) > n)
      add("FieldValueTooLong", path, "Too long: may not be more than " + number_text(n) + " bytes");
    if (const json::value* p = s.if_contains("pattern"); p && p->is_string()) {
      // kube-apiserver matches with Go's regexp (RE2 syntax, linear time, unanchored): so does
      // the sim. A pattern RE2 cannot read is not checked (kube-apiserver refuses such a CRD;
      // the sim does not, docs/sim.md).
      const RE2& re = pattern(p->get_string());
      if (re.ok() && !RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), re))
        add("FieldValueInvalid", path,
            "Invalid value: " + shown(v) + ": " + path + " in body should match '" +
                std::string(p->get_string()) + "'");
    }
  }

  void numbers(const json::object& s, const json::value& v, const std::string& path) {
    double x = v.to_number<double>(), bound = 0;
    bool exclusive_min = flag(s, "exclusiveMinimum"), exclusive_max = flag(s, "exclusiveMaximum");
    if (number_at(s, "minimum", bound) && (exclusive_min ? x <= bound : x < bound))
      add("FieldValueInvalid", path,
          "Invalid value: " + shown(v) + ": " + path + " in body should be greater than " +
              (exclusive_min ? "" : "or equal to ") + number_text(bound));
    if (number_at(s, "maximum", bound) && (exclusive_max ? x >= bound : x > bound))
      add("FieldValueInvalid", path,
          "Invalid value: " + shown(v) + ": " + path + " in body should be less than " +
              (exclusive_max ? "" : "or equal to ") + number_text(bound));
    if (number_at(s, "multipleOf", bound) && bound > 0 &&
        std::fabs(std::remainder(x, bound)) > 1e-9)
      add("FieldValueInvalid", path,
          "Invalid value: " + shown(v) + ": " + path + " in body should be a multiple of " +
              number_text(bound));
  }

  // minItems/maxItems, minProperties/maxProperties.
  void count_bounds(const json::object& s, size_t count, const std::string& path,
                    std::string_view min_key, std::string_view max_key, std::string_view noun) {
    double n = 0;
    if (number_at(s, min_key, n) && static_cast<double>(count) < n)
      add("FieldValueInvalid", path,
          "Invalid value: " + std::to_string(count) + ": " + path +
              " in body should have at least " + number_text(n) + " " + std::string(noun));
    if (number_at(s, max_key, n) && static_cast<double>(count) > n)
      add("FieldValueTooMany", path,
          "Too many: " + std::to_string(count) + ": must have at most " + number_text(n) +
              " items");
  }

  void arrays(const json::object& s, const json::array& a, const std::string& path,
              const json::array* old) {
    count_bounds(s, a.size(), path, "minItems", "maxItems", "items");
    const json::object* items = schema_object(s.if_contains("items"));
    if (!items) return;
    // Items of a list of type map correspond to the item before with the same values of its
    // x-kubernetes-list-map-keys; items of other lists to none. Indexed once per list.
    const json::array* keys = array_at(&s, "x-kubernetes-list-map-keys");
    std::map<std::string, const json::value*> before;
    if (old && keys && string_at(s, "x-kubernetes-list-type") == "map")
      for (const json::value& item : *old)
        if (item.is_object()) before.emplace(map_key(item.get_object(), *keys), &item);
    for (size_t i = 0; i < a.size(); ++i) {
      const json::value* was = nullptr;
      if (!before.empty() && a[i].is_object())
        if (auto it = before.find(map_key(a[i].get_object(), *keys)); it != before.end())
          was = it->second;
      check(*items, a[i], path + "[" + std::to_string(i) + "]", was);
    }
  }

  // A list-map item's identity: its keys' values, serialized (a missing key is null).
  static std::string map_key(const json::object& item, const json::array& keys) {
    std::string out;
    for (const json::value& k : keys) {
      const json::value* v = k.is_string() ? item.if_contains(k.get_string()) : nullptr;
      out += (v ? json::serialize(*v) : "null") + "\x1f";
    }
    return out;
  }

  void objects(const json::object& s, const json::object& o, const std::string& path,
               const json::object* old) {
    if (const json::value* req = s.if_contains("required"); req && req->is_array())
      for (const json::value& r : req->get_array())
        if (r.is_string() && !o.contains(r.get_string()))
          add("FieldValueRequired", join(path, r.get_string()), "Required value");
    count_bounds(s, o.size(), path, "minProperties", "maxProperties", "properties");
    for (const auto& kv : o) {
      if (meta_field(path.empty(), kv.key())) continue;
      if (const json::object* cs = child_schema(s, kv.key()))
        check(*cs, kv.value(), join(path, kv.key()), old ? old->if_contains(kv.key()) : nullptr);
    }
  }

  // x-kubernetes-validations: each rule a CEL expression over `self` (the value at this node),
  // true or refused with its message (messageExpression is not evaluated: its message, else
  // "failed rule: <rule>"), its reason and fieldPath. A transition rule (one naming oldSelf) is
  // checked on an update where the value before corresponds (`old`), with oldSelf bound to it,
  // and skipped elsewhere, as kube-apiserver does; one with optionalOldSelf is not checked
  // (docs/cel.md).
  void validation_rules(const json::array& rules, const std::string& type, const json::value& v,
                        const std::string& path, const json::value* old) {
    std::optional<cel::Bindings> self, both;
    for (const json::value& r : rules) {
      if (!r.is_object() || cost_exhausted_) continue;
      const json::object& rule = r.get_object();
      std::string text = string_at(rule, "rule");
      if (text.empty()) continue;
      bool transition = text.find("oldSelf") != std::string::npos;
      if (transition) {
        const json::value* optional = rule.if_contains("optionalOldSelf");
        if (!old || (optional && optional->is_bool() && optional->get_bool())) continue;
      }
      auto& program =
          programs_.try_emplace(text, cel::Program::compile(text, {{"self", "oldSelf"}}))
              .first->second;
      if (!program) continue;  // kube-apiserver refuses such a CRD when it is written
      if (!self) self = cel::Bindings{{"self", to_cel(v, 0)}};
      if (transition && !both) {
        both = *self;
        both->emplace_back("oldSelf", to_cel(*old, 0));
      }
      const cel::Bindings* bindings = transition ? &*both : &*self;
      cel::EvalResult result = program->evaluate(*bindings, cost_left_);
      cost_left_ -= std::min(cost_left_, result.cost);
      std::string field = path;
      if (std::string fp = string_at(rule, "fieldPath"); !fp.empty())
        field = path + (fp.front() == '.' ? fp : "." + fp);
      std::string reason = string_at(rule, "reason");
      if (result.value.is_error()) {
        if (result.value.text().starts_with("operation cancelled")) {
          cost_exhausted_ = true;
          add("FieldValueForbidden", field,
              "Forbidden: validation failed due to running out of cost budget, no further "
              "validation rules will be run");
          continue;
        }
        add("FieldValueInvalid", field,
            "Invalid value: \"" + type + "\": " + result.value.text() +
                " evaluating rule: " + text);
        continue;
      }
      if (result.value.is_bool() && result.value.as_bool()) continue;
      std::string message = string_at(rule, "message");
      if (message.empty()) message = "failed rule: " + text;
      // The reason says how the error reads, as field.Error words each type.
      if (reason == "FieldValueForbidden")
        add(reason, field, "Forbidden: " + message);
      else if (reason == "FieldValueRequired")
        add(reason, field, "Required value: " + message);
      else if (reason == "FieldValueDuplicate")
        add(reason, field, "Duplicate value: \"" + type + "\": " + message);
      else
        add("FieldValueInvalid", field, "Invalid value: \"" + type + "\": " + message);
    }
  }

  // A JSON value as CEL sees an object's field: maps, lists, int, double, string, bool, null.
  static cel::Value to_cel(const json::value& v, int depth) {
    if (depth > 64) return cel::Value::error("nested too deeply");
    switch (v.kind()) {
      case json::kind::null:
        return cel::Value();
      case json::kind::bool_:
        return cel::Value::boolean(v.get_bool());
      case json::kind::int64:
        return cel::Value::integer(v.get_int64());
      case json::kind::uint64:
        return cel::Value::unsigned_integer(v.get_uint64());
      case json::kind::double_:
        return cel::Value::floating(v.get_double());
      case json::kind::string:
        return cel::Value::string(std::string(v.get_string()));
      case json::kind::array: {
        cel::List items;
        for (const json::value& x : v.get_array()) items.push_back(to_cel(x, depth + 1));
        return cel::Value::list(std::move(items));
      }
      case json::kind::object: {
        cel::Map entries;
        for (const auto& kv : v.get_object())
          entries.emplace_back(cel::Value::string(std::string(kv.key())),
                               to_cel(kv.value(), depth + 1));
        return cel::Value::map(std::move(entries));
      }
    }
    return cel::Value();
  }

  static std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }

 private:
  // By the schema's text, which outlives the validation.
  std::map<std::string_view, std::unique_ptr<RE2>> patterns_;
  std::map<std::string, Result<cel::Program>> programs_;
  // kube-apiserver's budget for all of one object's rules together (RuntimeCELCostBudget).
  uint64_t cost_left_ = 10'000'000;
  bool cost_exhausted_ = false;
};

}  // namespace

void apply_schema_defaults(const json::value& schema, json::object& object) {
  const json::object* s = schema.if_object();
  if (!s) return;
  json::value v(std::move(object));
  defaults(*s, v, /*root=*/true);
  object = std::move(v.get_object());
}

std::vector<SchemaViolation> validate_against_schema(const json::value& schema,
                                                     const json::object& object,
                                                     const json::object* old) {
  const json::object* s = schema.if_object();
  if (!s) return {};
  Validator v;
  json::value before = old ? json::value(*old) : json::value();
  v.check(*s, json::value(object), "", old ? &before : nullptr);
  return std::move(v.out);
}

}  // namespace planter::sim
