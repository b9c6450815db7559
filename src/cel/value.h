// CEL's values (https://github.com/google/cel-spec/blob/master/doc/langdef.md, "Values"), with the
// two types the Kubernetes CEL libraries add that Dynamic Resource Allocation's selectors use:
// quantity (k8s.io/apiserver's library `quantity`) and semver (`semver`). An error is a value too:
// CEL's logical operators absorb errors (`false && 1/0 > 0` is false), so evaluation carries them
// rather than throwing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace planter::cel {

enum class Kind {
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,
  kMap,
  kType,
  kQuantity,
  kSemver,
  kError
};

// The type's name as CEL's type() and error messages say it: "int", "list", "map", "null_type".
std::string_view kind_name(Kind k);

class Value;
using List = std::vector<Value>;
// Entries in insertion order; keys are unique by CEL's equality.
using Map = std::vector<std::pair<Value, Value>>;

struct Quantity {
  double amount = 0;  // in base units ("1Gi" = 1073741824, "100m" = 0.1)
  std::string text;   // as written, for string()
};

struct Semver {
  int64_t major = 0, minor = 0, patch = 0;
  std::string pre;  // "rc.1" of "1.2.3-rc.1"; build metadata is dropped, as semver compares
};

class Value {
 public:
  Value() = default;  // null
  static Value boolean(bool b);
  static Value integer(int64_t i);
  static Value unsigned_integer(uint64_t u);
  static Value floating(double d);
  static Value string(std::string s);
  static Value bytes(std::string b);
  static Value list(List items);
  static Value map(Map entries);
  static Value type(Kind k);
  static Value quantity(Quantity q);
  static Value semver(Semver v);
  static Value error(std::string message);

  Kind kind() const { return kind_; }
  bool is_error() const { return kind_ == Kind::kError; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool as_bool() const { return std::get<bool>(data_); }
  int64_t as_int() const { return std::get<int64_t>(data_); }
  uint64_t as_uint() const { return std::get<uint64_t>(data_); }
  double as_double() const { return std::get<double>(data_); }
  // The text of a string, the bytes of a bytes value, the message of an error.
  const std::string& text() const { return std::get<std::string>(data_); }
  const List& as_list() const { return *std::get<std::shared_ptr<const List>>(data_); }
  const Map& as_map() const { return *std::get<std::shared_ptr<const Map>>(data_); }
  Kind as_type() const { return std::get<Kind>(data_); }
  const Quantity& as_quantity() const { return std::get<Quantity>(data_); }
  const Semver& as_semver() const { return std::get<Semver>(data_); }

  // The map entry under `key`, or null when there is none.
  const Value* find(const Value& key) const;

  // For tests and messages: `int:1`, `string:"a"`, `list:[int:1, bool:true]`, `error:…`.
  std::string debug() const;

 private:
  Kind kind_ = Kind::kNull;
  std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string,
               std::shared_ptr<const List>, std::shared_ptr<const Map>, Kind, Quantity, Semver>
      data_;
};

// CEL's equality: numbers by value across int, uint and double; lists and maps element by element;
// values of different types are not equal (never an error).
bool equal(const Value& a, const Value& b);

// CEL's ordering for <, <=, >, >=: -1, 0, 1; nullopt when the two have no ordering (lists, maps,
// null, different non-numeric types), which the operators report as "no such overload". NaN
// compares false every way: it returns 2.
std::optional<int> compare(const Value& a, const Value& b);

}  // namespace planter::cel
