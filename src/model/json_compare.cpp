#include "model/json_compare.h"

#include <boost/json.hpp>

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

}  // namespace planter
