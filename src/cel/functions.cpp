#include "cel/functions.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <charconv>
#include <cmath>
#include <limits>

#include "model/quantity.h"
#include "model/utf8.h"

namespace planter::cel {

namespace {

Value error(std::string message) {
  return Value::error(std::move(message));
}

// Code points in UTF-8 text (the parser and the conversions only make valid UTF-8).
int64_t code_points(std::string_view s) {
  int64_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

bool valid_utf8(std::string_view s) {
  uint32_t cp = 0;
  for (size_t i = 0, n = 0; i < s.size(); i += n)
    if ((n = utf8_sequence(s, i, cp)) == 0) return false;
  return true;
}

bool kinds(std::span<const Value> args, std::initializer_list<Kind> want) {
  if (args.size() != want.size()) return false;
  size_t i = 0;
  for (Kind k : want)
    if (args[i++].kind() != k) return false;
  return true;
}

Value size(std::span<const Value> a, Spend&) {
  if (a.size() != 1) return no_overload("size", a);
  switch (a[0].kind()) {
    case Kind::kString:
      return Value::integer(code_points(a[0].text()));
    case Kind::kBytes:
      return Value::integer(static_cast<int64_t>(a[0].text().size()));
    case Kind::kList:
      return Value::integer(static_cast<int64_t>(a[0].as_list().size()));
    case Kind::kMap:
      return Value::integer(static_cast<int64_t>(a[0].as_map().size()));
    default:
      return no_overload("size", a);
  }
}

template <bool (*Test)(std::string_view, std::string_view)>
Value string_test(std::span<const Value> a, Spend& spend, std::string_view name) {
  if (!kinds(a, {Kind::kString, Kind::kString})) return no_overload(name, a);
  spend.cost += (a[0].text().size() + a[1].text().size()) / 10;
  return Value::boolean(Test(a[0].text(), a[1].text()));
}

bool contains_text(std::string_view s, std::string_view x) {
  return s.find(x) != std::string_view::npos;
}
bool starts_text(std::string_view s, std::string_view x) {
  return s.starts_with(x);
}
bool ends_text(std::string_view s, std::string_view x) {
  return s.ends_with(x);
}

Value contains(std::span<const Value> a, Spend& s) {
  return string_test<contains_text>(a, s, "contains");
}
Value starts_with(std::span<const Value> a, Spend& s) {
  return string_test<starts_text>(a, s, "startsWith");
}
Value ends_with(std::span<const Value> a, Spend& s) {
  return string_test<ends_text>(a, s, "endsWith");
}

// RE2 syntax, as CEL specifies, searching anywhere in the text (not anchored).
Value matches(std::span<const Value> a, Spend& spend) {
  if (!kinds(a, {Kind::kString, Kind::kString})) return no_overload("matches", a);
  spend.cost += a[0].text().size() * (1 + a[1].text().size() / 10) / 10 + a[1].text().size();
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(8 << 20);
  RE2 re(a[1].text(), options);
  if (!re.ok())
    return error(fmt::format("invalid regular expression '{}': {}", a[1].text(), re.error()));
  return Value::boolean(RE2::PartialMatch(a[0].text(), re));
}

std::string double_text(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d < 0 ? "-Infinity" : "+Infinity";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, ec == std::errc() ? end : buf);
}

Value to_int(std::span<const Value> a, Spend&) {
  if (a.size() != 1) return no_overload("int", a);
  const Value& v = a[0];
  switch (v.kind()) {
    case Kind::kInt:
      return v;
    case Kind::kUint:
      if (v.as_uint() > static_cast<uint64_t>(INT64_MAX))
        return error("range error converting uint to int");
      return Value::integer(static_cast<int64_t>(v.as_uint()));
    case Kind::kDouble: {
      double d = v.as_double();
      // The doubles that truncate into int's range (2^63 is not one of them).
      if (std::isnan(d) || d <= -9223372036854775808.0 || d >= 9223372036854775808.0)
        return error("range error converting double to int");
      return Value::integer(static_cast<int64_t>(d));
    }
    case Kind::kString: {
      int64_t i = 0;
      const std::string& t = v.text();
      auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), i);
      if (ec != std::errc() || end != t.data() + t.size() || t.empty())
        return error(fmt::format("cannot convert \"{}\" to int", t));
      return Value::integer(i);
    }
    default:
      return no_overload("int", a);
  }
}

Value to_uint(std::span<const Value> a, Spend&) {
  if (a.size() != 1) return no_overload("uint", a);
  const Value& v = a[0];
  switch (v.kind()) {
    case Kind::kUint:
      return v;
    case Kind::kInt:
      if (v.as_int() < 0) return error("range error converting int to uint");
      return Value::unsigned_integer(static_cast<uint64_t>(v.as_int()));
    case Kind::kDouble: {
      double d = v.as_double();
      if (std::isnan(d) || d <= -1.0 || d >= 18446744073709551616.0)
        return error("range error converting double to uint");
      return Value::unsigned_integer(static_cast<uint64_t>(d));
    }
    case Kind::kString: {
      uint64_t u = 0;
      const std::string& t = v.text();
      auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), u);
      if (ec != std::errc() || end != t.data() + t.size() || t.empty())
        return error(fmt::format("cannot convert \"{}\" to uint", t));
      return Value::unsigned_integer(u);
    }
    default:
      return no_overload("uint", a);
  }
}

Value to_double(std::span<const Value> a, Spend&) {
  if (a.size() != 1) return no_overload("double", a);
  const Value& v = a[0];
  switch (v.kind()) {
    case Kind::kDouble:
      return v;
    case Kind::kInt:
      return Value::floating(static_cast<double>(v.as_int()));
    case Kind::kUint:
      return Value::floating(static_cast<double>(v.as_uint()));
    case Kind::kString: {
      const std::string& t = v.text();
      if (t == "NaN") return Value::floating(std::numeric_limits<double>::quiet_NaN());
      if (t == "Infinity" || t == "+Infinity") return Value::floating(INFINITY);
      if (t == "-Infinity") return Value::floating(-INFINITY);
      double d = 0;
      auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
      if (ec != std::errc() || end != t.data() + t.size() || t.empty())
        return error(fmt::format("cannot convert \"{}\" to double", t));
      return Value::floating(d);
    }
    default:
      return no_overload("double", a);
  }
}

Value to_string(std::span<const Value> a, Spend&) {
  if (a.size() != 1) return no_overload("string", a);
  const Value& v = a[0];
  switch (v.kind()) {
    case Kind::kString:
      return v;
    case Kind::kInt:
      return Value::string(std::to_string(v.as_int()));
    case Kind::kUint:
      return Value::string(std::to_string(v.as_uint()));
    case Kind::kDouble:
      return Value::string(double_text(v.as_double()));
    case Kind::kBool:
      return Value::string(v.as_bool() ? "true" : "false");
    case Kind::kBytes:
      if (!valid_utf8(v.text())) return error("invalid UTF-8 in bytes, cannot convert to string");
      return Value::string(v.text());
    case Kind::kQuantity:
      return Value::string(v.as_quantity().text);
    case Kind::kSemver: {
      const Semver& s = v.as_semver();
      return Value::string(
          fmt::format("{}.{}.{}{}{}", s.major, s.minor, s.patch, s.pre.empty() ? "" : "-", s.pre));
    }
    default:
      return no_overload("string", a);
  }
}

Value to_bytes(std::span<const Value> a, Spend&) {
  if (a.size() != 1) return no_overload("bytes", a);
  if (a[0].kind() == Kind::kBytes) return a[0];
  if (a[0].kind() == Kind::kString) return Value::bytes(a[0].text());
  return no_overload("bytes", a);
}

Value to_bool(std::span<const Value> a, Spend&) {
  if (a.size() != 1) return no_overload("bool", a);
  if (a[0].is_bool()) return a[0];
  if (a[0].kind() != Kind::kString) return no_overload("bool", a);
  const std::string& t = a[0].text();
  for (const char* yes : {"1", "t", "true", "TRUE", "True"})
    if (t == yes) return Value::boolean(true);
  for (const char* no : {"0", "f", "false", "FALSE", "False"})
    if (t == no) return Value::boolean(false);
  return error(fmt::format("cannot convert \"{}\" to bool", t));
}

Value type_of(std::span<const Value> a, Spend&) {
  if (a.size() != 1) return no_overload("type", a);
  return Value::type(a[0].kind());
}

Value dyn(std::span<const Value> a, Spend&) {
  if (a.size() != 1) return no_overload("dyn", a);
  return a[0];
}

// ---- strings (k8s.io/apiserver's CEL library `strings`, from cel-go's ext.Strings) ----

Value lower_ascii(std::span<const Value> a, Spend& spend) {
  if (!kinds(a, {Kind::kString})) return no_overload("lowerAscii", a);
  spend.cost += a[0].text().size() / 10;
  std::string s = a[0].text();
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return Value::string(std::move(s));
}

Value upper_ascii(std::span<const Value> a, Spend& spend) {
  if (!kinds(a, {Kind::kString})) return no_overload("upperAscii", a);
  spend.cost += a[0].text().size() / 10;
  std::string s = a[0].text();
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return Value::string(std::move(s));
}

Value trim(std::span<const Value> a, Spend& spend) {
  if (!kinds(a, {Kind::kString})) return no_overload("trim", a);
  spend.cost += a[0].text().size() / 10;
  std::string_view s = a[0].text();
  const char* space = " \t\n\r\f\v";
  size_t b = s.find_first_not_of(space);
  if (b == std::string_view::npos) return Value::string("");
  size_t e = s.find_last_not_of(space);
  return Value::string(std::string(s.substr(b, e - b + 1)));
}

Value split(std::span<const Value> a, Spend& spend) {
  if (!kinds(a, {Kind::kString, Kind::kString})) return no_overload("split", a);
  std::string_view s = a[0].text(), sep = a[1].text();
  spend.cost += s.size() / 10 + 1;
  List out;
  if (sep.empty()) {
    for (size_t i = 0; i < s.size();) {
      size_t n = 1;
      while (i + n < s.size() && (static_cast<unsigned char>(s[i + n]) & 0xC0) == 0x80) ++n;
      out.push_back(Value::string(std::string(s.substr(i, n))));
      i += n;
    }
    spend.cost += out.size();
    return Value::list(std::move(out));
  }
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    out.push_back(Value::string(std::string(s.substr(start, at - start))));
    if (at == std::string_view::npos) break;
    start = at + sep.size();
  }
  spend.cost += out.size();
  return Value::list(std::move(out));
}

Value join(std::span<const Value> a, Spend& spend) {
  if (a.empty() || a[0].kind() != Kind::kList || a.size() > 2 ||
      (a.size() == 2 && a[1].kind() != Kind::kString))
    return no_overload("join", a);
  std::string sep = a.size() == 2 ? a[1].text() : "";
  std::string out;
  bool first = true;
  for (const Value& v : a[0].as_list()) {
    if (v.kind() != Kind::kString) return no_overload("join", a);
    if (!first) out += sep;
    out += v.text();
    first = false;
    if (out.size() > 10'000'000) return error("operation cancelled: actual cost limit exceeded");
  }
  spend.cost += out.size() / 10 + a[0].as_list().size();
  return Value::string(std::move(out));
}

Value replace(std::span<const Value> a, Spend& spend) {
  if (!kinds(a, {Kind::kString, Kind::kString, Kind::kString})) return no_overload("replace", a);
  std::string_view s = a[0].text(), from = a[1].text(), to = a[2].text();
  std::string out;
  if (from.empty()) return a[0];
  size_t start = 0;
  while (true) {
    size_t at = s.find(from, start);
    out += s.substr(start, at - start);
    if (at == std::string_view::npos) break;
    out += to;
    start = at + from.size();
    if (out.size() > 10'000'000) return error("operation cancelled: actual cost limit exceeded");
  }
  spend.cost += (s.size() + out.size()) / 10;
  return Value::string(std::move(out));
}

Value index_of(std::span<const Value> a, Spend& spend) {
  if (!kinds(a, {Kind::kString, Kind::kString})) return no_overload("indexOf", a);
  std::string_view s = a[0].text();
  spend.cost += s.size() / 10;
  size_t at = s.find(a[1].text());
  if (at == std::string_view::npos) return Value::integer(-1);
  return Value::integer(code_points(s.substr(0, at)));
}

// ---- quantity (k8s.io/apiserver/pkg/cel/library/quantity.go) ----

std::optional<Quantity> read_quantity(const std::string& text) {
  auto q = parse_signed_quantity(text);
  if (!q) return std::nullopt;
  return Quantity{*q, text};
}

Value quantity(std::span<const Value> a, Spend&) {
  if (!kinds(a, {Kind::kString})) return no_overload("quantity", a);
  auto q = read_quantity(a[0].text());
  if (!q)
    return error(
        fmt::format("quantities must match the regular expression "
                    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (\"{}\")",
                    a[0].text()));
  return Value::quantity(std::move(*q));
}

Value is_quantity(std::span<const Value> a, Spend&) {
  if (!kinds(a, {Kind::kString})) return no_overload("isQuantity", a);
  return Value::boolean(read_quantity(a[0].text()).has_value());
}

// ---- semver (k8s.io/apiserver/pkg/cel/library/semverlib.go) ----

std::optional<Semver> read_semver(std::string_view t) {
  Semver v;
  size_t plus = t.find('+');
  if (plus != std::string_view::npos) t = t.substr(0, plus);
  size_t dash = t.find('-');
  std::string_view core = t.substr(0, dash);
  if (dash != std::string_view::npos) {
    v.pre = std::string(t.substr(dash + 1));
    if (v.pre.empty()) return std::nullopt;
  }
  int64_t* parts[] = {&v.major, &v.minor, &v.patch};
  for (int i = 0; i < 3; ++i) {
    size_t dot = core.find('.');
    if ((i < 2) == (dot == std::string_view::npos)) return std::nullopt;
    std::string_view p = core.substr(0, dot);
    if (p.empty() || (p.size() > 1 && p[0] == '0')) return std::nullopt;
    auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), *parts[i]);
    if (ec != std::errc() || end != p.data() + p.size()) return std::nullopt;
    core = dot == std::string_view::npos ? std::string_view{} : core.substr(dot + 1);
  }
  return v;
}

Value semver(std::span<const Value> a, Spend&) {
  if (!kinds(a, {Kind::kString})) return no_overload("semver", a);
  auto v = read_semver(a[0].text());
  if (!v) return error(fmt::format("could not parse \"{}\" as a semantic version", a[0].text()));
  return Value::semver(std::move(*v));
}

Value is_semver(std::span<const Value> a, Spend&) {
  if (!kinds(a, {Kind::kString})) return no_overload("isSemver", a);
  return Value::boolean(read_semver(a[0].text()).has_value());
}

// isGreaterThan, isLessThan, compareTo: two quantities or two versions.
Value ordered(std::span<const Value> a, std::string_view name) {
  if (a.size() != 2 || a[0].kind() != a[1].kind() ||
      (a[0].kind() != Kind::kQuantity && a[0].kind() != Kind::kSemver))
    return no_overload(name, a);
  int c = *compare(a[0], a[1]);
  if (name == "compareTo") return Value::integer(c);
  return Value::boolean(name == "isGreaterThan" ? c > 0 : c < 0);
}
Value is_greater_than(std::span<const Value> a, Spend&) {
  return ordered(a, "isGreaterThan");
}
Value is_less_than(std::span<const Value> a, Spend&) {
  return ordered(a, "isLessThan");
}
Value compare_to(std::span<const Value> a, Spend&) {
  return ordered(a, "compareTo");
}

Value as_integer(std::span<const Value> a, Spend&) {
  if (!kinds(a, {Kind::kQuantity})) return no_overload("asInteger", a);
  double d = a[0].as_quantity().amount;
  if (d != std::trunc(d) || d <= -9223372036854775808.0 || d >= 9223372036854775808.0)
    return error("cannot convert value to integer");
  return Value::integer(static_cast<int64_t>(d));
}

Value is_integer(std::span<const Value> a, Spend&) {
  if (!kinds(a, {Kind::kQuantity})) return no_overload("isInteger", a);
  double d = a[0].as_quantity().amount;
  return Value::boolean(d == std::trunc(d) && std::abs(d) < 9.2e18);
}

Value as_approximate_float(std::span<const Value> a, Spend&) {
  if (!kinds(a, {Kind::kQuantity})) return no_overload("asApproximateFloat", a);
  return Value::floating(a[0].as_quantity().amount);
}

Value sign(std::span<const Value> a, Spend&) {
  if (!kinds(a, {Kind::kQuantity})) return no_overload("sign", a);
  double d = a[0].as_quantity().amount;
  return Value::integer(d > 0 ? 1 : (d < 0 ? -1 : 0));
}

Value add_or_sub(std::span<const Value> a, bool add) {
  std::string_view name = add ? "add" : "sub";
  if (a.size() != 2 || a[0].kind() != Kind::kQuantity) return no_overload(name, a);
  double x = a[0].as_quantity().amount, y = 0;
  if (a[1].kind() == Kind::kQuantity)
    y = a[1].as_quantity().amount;
  else if (a[1].kind() == Kind::kInt)
    y = static_cast<double>(a[1].as_int());
  else
    return no_overload(name, a);
  double r = add ? x + y : x - y;
  return Value::quantity({r, double_text(r)});
}
Value add(std::span<const Value> a, Spend&) {
  return add_or_sub(a, true);
}
Value sub(std::span<const Value> a, Spend&) {
  return add_or_sub(a, false);
}

Value version_part(std::span<const Value> a, std::string_view name) {
  if (!kinds(a, {Kind::kSemver})) return no_overload(name, a);
  const Semver& v = a[0].as_semver();
  return Value::integer(name == "major" ? v.major : name == "minor" ? v.minor : v.patch);
}
Value major(std::span<const Value> a, Spend&) {
  return version_part(a, "major");
}
Value minor(std::span<const Value> a, Spend&) {
  return version_part(a, "minor");
}
Value patch(std::span<const Value> a, Spend&) {
  return version_part(a, "patch");
}

constexpr Function kFunctions[] = {
    {"size", false, size},
    {"size", true, size},
    {"contains", true, contains},
    {"startsWith", true, starts_with},
    {"endsWith", true, ends_with},
    {"matches", true, matches},
    {"matches", false, matches},
    {"int", false, to_int},
    {"uint", false, to_uint},
    {"double", false, to_double},
    {"string", false, to_string},
    {"bytes", false, to_bytes},
    {"bool", false, to_bool},
    {"type", false, type_of},
    {"dyn", false, dyn},
    {"lowerAscii", true, lower_ascii},
    {"upperAscii", true, upper_ascii},
    {"trim", true, trim},
    {"split", true, split},
    {"join", true, join},
    {"replace", true, replace},
    {"indexOf", true, index_of},
    {"quantity", false, quantity},
    {"isQuantity", false, is_quantity},
    {"semver", false, semver},
    {"isSemver", false, is_semver},
    {"isGreaterThan", true, is_greater_than},
    {"isLessThan", true, is_less_than},
    {"compareTo", true, compare_to},
    {"asInteger", true, as_integer},
    {"isInteger", true, is_integer},
    {"asApproximateFloat", true, as_approximate_float},
    {"sign", true, sign},
    {"add", true, add},
    {"sub", true, sub},
    {"major", true, major},
    {"minor", true, minor},
    {"patch", true, patch},
};

}  // namespace

std::optional<int16_t> find_function(std::string_view name, bool method) {
  for (size_t i = 0; i < std::size(kFunctions); ++i)
    if (kFunctions[i].name == name && kFunctions[i].method == method)
      return static_cast<int16_t>(i);
  return std::nullopt;
}

const Function& function_at(int16_t index) {
  return kFunctions[static_cast<size_t>(index)];
}

Value parse_semver(std::string_view text) {
  auto v = read_semver(text);
  if (!v) return Value::error(fmt::format("could not parse \"{}\" as a semantic version", text));
  return Value::semver(std::move(*v));
}

Value no_overload(std::string_view name, std::span<const Value> args) {
  std::string kinds_text;
  for (const Value& v : args)
    kinds_text += (kinds_text.empty() ? "" : ", ") + std::string(kind_name(v.kind()));
  return Value::error(fmt::format("no such overload: {}({})", name, kinds_text));
}

}  // namespace planter::cel
