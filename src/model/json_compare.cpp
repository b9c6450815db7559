#include "model/json_compare.h"

#include <algorithm>
#include <boost/json.hpp>
#include <vector>

namespace planter {

namespace json = boost::json;

bool json_equal(const json::value& a, const json::value& b) noexcept {
  switch (a.kind()) {
    case json::kind::object: {
      if (!b.is_object() || a.get_object().size() != b.get_object().size()) return false;
      const json::object& other = b.get_object();
      for (const json::key_value_pair& kv : a.get_object()) {
        const json::value* v = other.if_contains(kv.key());
        if (!v || !json_equal(kv.value(), *v)) return false;
      }
      return true;
    }
    case json::kind::array: {
      if (!b.is_array() || a.get_array().size() != b.get_array().size()) return false;
      const json::array& x = a.get_array();
      const json::array& y = b.get_array();
      for (size_t i = 0; i < x.size(); ++i)
        if (!json_equal(x[i], y[i])) return false;
      return true;
    }
    default:
      return a == b;  // scalars and strings compare in place
  }
}

namespace {

void append_canonical(const json::value& v, std::string& out) {
  switch (v.kind()) {
    case json::kind::object: {
      std::vector<const json::key_value_pair*> kvs;
      kvs.reserve(v.get_object().size());
      for (const json::key_value_pair& kv : v.get_object()) kvs.push_back(&kv);
      std::sort(kvs.begin(), kvs.end(),
                [](const auto* x, const auto* y) { return x->key() < y->key(); });
      out += '{';
      for (size_t i = 0; i < kvs.size(); ++i) {
        if (i) out += ',';
        out += json::serialize(json::string(kvs[i]->key()));
        out += ':';
        append_canonical(kvs[i]->value(), out);
      }
      out += '}';
      return;
    }
    case json::kind::array: {
      const json::array& a = v.get_array();
      out += '[';
      for (size_t i = 0; i < a.size(); ++i) {
        if (i) out += ',';
        append_canonical(a[i], out);
      }
      out += ']';
      return;
    }
    default:
      out += json::serialize(v);
  }
}

}  // namespace

std::string canonical_json(const json::value& v) {
  std::string out;
  append_canonical(v, out);
  return out;
}

}  // namespace planter
