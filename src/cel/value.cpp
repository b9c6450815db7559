#include "cel/value.h"

#include <fmt/format.h>

#include <cmath>

namespace planter::cel {

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::kNull:
      return "null_type";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kUint:
      return "uint";
    case Kind::kDouble:
      return "double";
    case Kind::kString:
      return "string";
    case Kind::kBytes:
      return "bytes";
    case Kind::kList:
      return "list";
    case Kind::kMap:
      return "map";
    case Kind::kType:
      return "type";
    case Kind::kQuantity:
      return "kubernetes.Quantity";
    case Kind::kSemver:
      return "kubernetes.Semver";
    case Kind::kError:
      return "error";
  }
  return "unknown";
}

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::kBool;
  v.data_ = b;
  return v;
}

Value Value::integer(int64_t i) {
  Value v;
  v.kind_ = Kind::kInt;
  v.data_ = i;
  return v;
}

Value Value::unsigned_integer(uint64_t u) {
  Value v;
  v.kind_ = Kind::kUint;
  v.data_ = u;
  return v;
}

Value Value::floating(double d) {
  Value v;
  v.kind_ = Kind::kDouble;
  v.data_ = d;
  return v;
}

Value Value::string(std::string s) {
  Value v;
  v.kind_ = Kind::kString;
  v.data_ = std::move(s);
  return v;
}

Value Value::bytes(std::string b) {
  Value v;
  v.kind_ = Kind::kBytes;
  v.data_ = std::move(b);
  return v;
}

Value Value::list(List items) {
  Value v;
  v.kind_ = Kind::kList;
  v.data_ = std::make_shared<const List>(std::move(items));
  return v;
}

Value Value::map(Map entries) {
  Value v;
  v.kind_ = Kind::kMap;
  v.data_ = std::make_shared<const Map>(std::move(entries));
  return v;
}

Value Value::type(Kind k) {
  Value v;
  v.kind_ = Kind::kType;
  v.data_ = k;
  return v;
}

Value Value::quantity(Quantity q) {
  Value v;
  v.kind_ = Kind::kQuantity;
  v.data_ = std::move(q);
  return v;
}

Value Value::semver(Semver s) {
  Value v;
  v.kind_ = Kind::kSemver;
  v.data_ = std::move(s);
  return v;
}

Value Value::error(std::string message) {
  Value v;
  v.kind_ = Kind::kError;
  v.data_ = std::move(message);
  return v;
}

const Value* Value::find(const Value& key) const {
  for (const auto& [k, v] : as_map())
    if (equal(k, key)) return &v;
  return nullptr;
}

namespace {

bool numeric(Kind k) {
  return k == Kind::kInt || k == Kind::kUint || k == Kind::kDouble;
}

// Numbers compared by value across types, exactly (no rounding through double where both are
// integers): -1, 0, 1, or 2 when either is NaN.
int compare_numbers(const Value& a, const Value& b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  Kind ka = a.kind(), kb = b.kind();
  if (ka == Kind::kDouble || kb == Kind::kDouble) {
    double x = ka == Kind::kDouble ? a.as_double()
               : ka == Kind::kInt  ? static_cast<double>(a.as_int())
                                   : static_cast<double>(a.as_uint());
    double y = kb == Kind::kDouble ? b.as_double()
               : kb == Kind::kInt  ? static_cast<double>(b.as_int())
                                   : static_cast<double>(b.as_uint());
    if (std::isnan(x) || std::isnan(y)) return 2;
    return cmp(x, y);
  }
  if (ka == Kind::kInt && kb == Kind::kInt) return cmp(a.as_int(), b.as_int());
  if (ka == Kind::kUint && kb == Kind::kUint) return cmp(a.as_uint(), b.as_uint());
  if (ka == Kind::kInt)
    return a.as_int() < 0 ? -1 : cmp(static_cast<uint64_t>(a.as_int()), b.as_uint());
  return b.as_int() < 0 ? 1 : cmp(a.as_uint(), static_cast<uint64_t>(b.as_int()));
}

int compare_semver(const Semver& a, const Semver& b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (int c = cmp(a.major, b.major)) return c;
  if (int c = cmp(a.minor, b.minor)) return c;
  if (int c = cmp(a.patch, b.patch)) return c;
  // A pre-release sorts before its release; two pre-releases by their dot-separated identifiers,
  // numeric ones as numbers and below alphanumeric ones (semver.org, item 11).
  if (a.pre.empty() || b.pre.empty())
    return a.pre.empty() == b.pre.empty() ? 0 : (a.pre.empty() ? 1 : -1);
  std::string_view x = a.pre, y = b.pre;
  while (true) {
    std::string_view px = x.substr(0, x.find('.')), py = y.substr(0, y.find('.'));
    bool nx = !px.empty() && px.find_first_not_of("0123456789") == std::string_view::npos;
    bool ny = !py.empty() && py.find_first_not_of("0123456789") == std::string_view::npos;
    int c = 0;
    if (nx && ny)
      c = px.size() != py.size() ? cmp(px.size(), py.size()) : cmp(px, py);
    else if (nx != ny)
      c = nx ? -1 : 1;
    else
      c = cmp(px, py);
    if (c) return c;
    bool ex = px.size() == x.size(), ey = py.size() == y.size();
    if (ex || ey) return ex && ey ? 0 : (ex ? -1 : 1);
    x.remove_prefix(px.size() + 1);
    y.remove_prefix(py.size() + 1);
  }
}

}  // namespace

bool equal(const Value& a, const Value& b) {
  if (numeric(a.kind()) && numeric(b.kind())) return compare_numbers(a, b) == 0;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::kNull:
      return true;
    case Kind::kBool:
      return a.as_bool() == b.as_bool();
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kError:
      return a.text() == b.text();
    case Kind::kType:
      return a.as_type() == b.as_type();
    case Kind::kQuantity:
      return a.as_quantity().amount == b.as_quantity().amount;
    case Kind::kSemver:
      return compare_semver(a.as_semver(), b.as_semver()) == 0;
    case Kind::kList: {
      const List& x = a.as_list();
      const List& y = b.as_list();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!equal(x[i], y[i])) return false;
      return true;
    }
    case Kind::kMap: {
      if (a.as_map().size() != b.as_map().size()) return false;
      for (const auto& [k, v] : a.as_map()) {
        const Value* other = b.find(k);
        if (!other || !equal(v, *other)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

std::optional<int> compare(const Value& a, const Value& b) {
  if (numeric(a.kind()) && numeric(b.kind())) return compare_numbers(a, b);
  if (a.kind() != b.kind()) return std::nullopt;
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  switch (a.kind()) {
    case Kind::kBool:
      return cmp(a.as_bool(), b.as_bool());
    case Kind::kString:
    case Kind::kBytes:
      return cmp(std::string_view(a.text()), std::string_view(b.text()));
    case Kind::kQuantity:
      return cmp(a.as_quantity().amount, b.as_quantity().amount);
    case Kind::kSemver:
      return compare_semver(a.as_semver(), b.as_semver());
    default:
      return std::nullopt;
  }
}

std::string Value::debug() const {
  switch (kind_) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return as_bool() ? "bool:true" : "bool:false";
    case Kind::kInt:
      return fmt::format("int:{}", as_int());
    case Kind::kUint:
      return fmt::format("uint:{}", as_uint());
    case Kind::kDouble:
      return fmt::format("double:{}", as_double());
    case Kind::kString:
      return fmt::format("string:\"{}\"", text());
    case Kind::kBytes:
      return fmt::format("bytes:\"{}\"", text());
    case Kind::kType:
      return fmt::format("type:{}", kind_name(as_type()));
    case Kind::kQuantity:
      return fmt::format("quantity:{}", as_quantity().text);
    case Kind::kSemver: {
      const Semver& s = as_semver();
      return fmt::format("semver:{}.{}.{}{}{}", s.major, s.minor, s.patch, s.pre.empty() ? "" : "-",
                         s.pre);
    }
    case Kind::kError:
      return "error:" + text();
    case Kind::kList: {
      std::string out = "list:[";
      for (size_t i = 0; i < as_list().size(); ++i) out += (i ? ", " : "") + as_list()[i].debug();
      return out + "]";
    }
    case Kind::kMap: {
      std::string out = "map:{";
      bool first = true;
      for (const auto& [k, v] : as_map()) {
        out += (first ? "" : ", ") + k.debug() + ": " + v.debug();
        first = false;
      }
      return out + "}";
    }
  }
  return "?";
}

}  // namespace planter::cel
