#include "cel/program.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "cel/functions.h"

namespace planter::cel {

Result<Program> Program::compile(std::string_view text, const ParseOptions& options) {
  auto root = parse(text, options);
  if (!root) return root.error();
  Program p;
  p.root_ = std::make_shared<const Node>(std::move(*root));
  p.text_ = std::string(text);
  return p;
}

namespace {

constexpr std::string_view kCostExceeded = "operation cancelled: actual cost limit exceeded";

Value overflow() {
  return Value::error("return error for overflow");
}

class Evaluator {
 public:
  Evaluator(const Bindings& vars, uint64_t limit) : vars_(vars), limit_(limit) {}

  uint64_t cost() const { return spend_.cost; }

  Value eval(const Node& n) {
    if (++spend_.cost > limit_) return Value::error(std::string(kCostExceeded));
    switch (n.op) {
      case Op::kLiteral:
        return n.literal;
      case Op::kIdent:
        return lookup(n.name);
      case Op::kSelect:
        return select(eval(n.kids[0]), n.name, false);
      case Op::kHas:
        return select(eval(n.kids[0]), n.name, true);
      case Op::kIndex:
        return index(eval(n.kids[0]), eval(n.kids[1]));
      case Op::kList: {
        List items;
        items.reserve(n.kids.size());
        for (const Node& k : n.kids) {
          Value v = eval(k);
          if (v.is_error()) return v;
          items.push_back(std::move(v));
        }
        return Value::list(std::move(items));
      }
      case Op::kMap: {
        Map entries;
        for (size_t i = 0; i + 1 < n.kids.size(); i += 2) {
          Value k = eval(n.kids[i]);
          if (k.is_error()) return k;
          if (k.kind() != Kind::kInt && k.kind() != Kind::kUint && k.kind() != Kind::kString &&
              k.kind() != Kind::kBool)
            return Value::error(fmt::format("unsupported key type: {}", kind_name(k.kind())));
          Value v = eval(n.kids[i + 1]);
          if (v.is_error()) return v;
          spend_.cost += entries.size();  // the duplicate check reads every key so far
          for (const auto& e : entries)
            if (equal(e.first, k)) return Value::error("Failed with repeated key");
          entries.emplace_back(std::move(k), std::move(v));
        }
        return Value::map(std::move(entries));
      }
      case Op::kAnd:
      case Op::kOr:
        return logical(n);
      case Op::kNot: {
        Value v = eval(n.kids[0]);
        if (v.is_error()) return v;
        if (!v.is_bool()) return no_overload("!_", std::span<const Value>(&v, 1));
        return Value::boolean(!v.as_bool());
      }
      case Op::kNeg:
        return negate(eval(n.kids[0]));
      case Op::kCond: {
        Value c = eval(n.kids[0]);
        if (c.is_error()) return c;
        if (!c.is_bool()) return no_overload("_?_:_", std::span<const Value>(&c, 1));
        return eval(n.kids[c.as_bool() ? 1 : 2]);
      }
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kDiv:
      case Op::kMod:
      case Op::kEq:
      case Op::kNe:
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe:
      case Op::kIn: {
        Value a = eval(n.kids[0]);
        if (a.is_error()) return a;
        Value b = eval(n.kids[1]);
        if (b.is_error()) return b;
        return binary(n.op, a, b);
      }
      case Op::kCall: {
        std::vector<Value> args;
        args.reserve(n.kids.size());
        for (const Node& k : n.kids) {
          Value v = eval(k);
          if (v.is_error()) return v;
          args.push_back(std::move(v));
        }
        Value out = function_at(n.fn).call(args, spend_);
        if (spend_.cost > limit_) return Value::error(std::string(kCostExceeded));
        return out;
      }
      case Op::kAll:
      case Op::kExists:
      case Op::kExistsOne:
      case Op::kMapMacro:
      case Op::kFilter:
        return comprehension(n);
    }
    return Value::error("unknown operation");
  }

 private:
  Value lookup(const std::string& name) const {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it)
      if (it->first == name) return it->second;
    for (const auto& [k, v] : vars_)
      if (k == name) return v;
    return Value::error(fmt::format("no such attribute: {}", name));
  }

  Value select(const Value& target, const std::string& field, bool presence) {
    if (target.is_error()) return target;
    if (target.kind() != Kind::kMap)
      return Value::error(fmt::format("no such key: {} (on {})", field, kind_name(target.kind())));
    spend_.cost += target.as_map().size() / 8;
    const Value* v = target.find(Value::string(field));
    if (presence) return Value::boolean(v != nullptr);
    if (!v) return Value::error(fmt::format("no such key: {}", field));
    return *v;
  }

  Value index(const Value& target, const Value& key) {
    if (target.is_error()) return target;
    if (key.is_error()) return key;
    if (target.kind() == Kind::kList) {
      const List& l = target.as_list();
      int64_t i = 0;
      if (key.kind() == Kind::kInt) {
        i = key.as_int();
      } else if (key.kind() == Kind::kUint) {
        if (key.as_uint() > static_cast<uint64_t>(INT64_MAX))
          return Value::error("index out of range");
        i = static_cast<int64_t>(key.as_uint());
      } else if (key.kind() == Kind::kDouble && std::trunc(key.as_double()) == key.as_double() &&
                 std::abs(key.as_double()) < 9.2e18) {
        i = static_cast<int64_t>(key.as_double());
      } else {
        Value args[] = {target, key};
        return no_overload("_[_]", args);
      }
      if (i < 0 || static_cast<uint64_t>(i) >= l.size())
        return Value::error(fmt::format("index out of range: index {}, size {}", i, l.size()));
      return l[static_cast<size_t>(i)];
    }
    if (target.kind() == Kind::kMap) {
      spend_.cost += target.as_map().size() / 8;
      const Value* v = target.find(key);
      if (!v) {
        std::string shown = key.kind() == Kind::kString ? key.text() : key.debug();
        return Value::error(fmt::format("no such key: {}", shown));
      }
      return *v;
    }
    Value args[] = {target, key};
    return no_overload("_[_]", args);
  }

  // CEL's && and ||: commutative over errors. The first operand that decides (false for &&,
  // true for ||) wins whatever the others are; else an error, if any; else the identity.
  Value logical(const Node& n) {
    bool is_and = n.op == Op::kAnd;
    Value pending;
    bool has_pending = false;
    for (const Node& k : n.kids) {
      Value v = eval(k);
      if (v.is_bool()) {
        if (v.as_bool() != is_and) return v;
        continue;
      }
      if (v.is_error() && std::string_view(v.text()) == kCostExceeded) return v;
      if (!has_pending) {
        pending =
            v.is_error() ? v : no_overload(is_and ? "_&&_" : "_||_", std::span<const Value>(&v, 1));
        has_pending = true;
      }
    }
    return has_pending ? pending : Value::boolean(is_and);
  }

  Value negate(const Value& v) {
    if (v.is_error()) return v;
    if (v.kind() == Kind::kInt) {
      if (v.as_int() == INT64_MIN) return overflow();
      return Value::integer(-v.as_int());
    }
    if (v.kind() == Kind::kDouble) return Value::floating(-v.as_double());
    return no_overload("-_", std::span<const Value>(&v, 1));
  }

  Value binary(Op op, const Value& a, const Value& b) {
    switch (op) {
      case Op::kEq:
      case Op::kNe: {
        spend_.cost += text_cost(a);
        bool eq = equal(a, b);
        return Value::boolean(op == Op::kEq ? eq : !eq);
      }
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe: {
        auto c = compare(a, b);
        if (!c) {
          Value args[] = {a, b};
          return no_overload(op == Op::kLt   ? "_<_"
                             : op == Op::kLe ? "_<=_"
                             : op == Op::kGt ? "_>_"
                                             : "_>=_",
                             args);
        }
        if (*c == 2) return Value::boolean(false);  // NaN
        bool r = op == Op::kLt   ? *c < 0
                 : op == Op::kLe ? *c <= 0
                 : op == Op::kGt ? *c > 0
                                 : *c >= 0;
        return Value::boolean(r);
      }
      case Op::kIn: {
        if (b.kind() == Kind::kList) {
          spend_.cost += b.as_list().size();
          for (const Value& v : b.as_list())
            if (equal(v, a)) return Value::boolean(true);
          return Value::boolean(false);
        }
        if (b.kind() == Kind::kMap) {
          spend_.cost += b.as_map().size() / 8;
          return Value::boolean(b.find(a) != nullptr);
        }
        Value args[] = {a, b};
        return no_overload("@in", args);
      }
      default:
        return arithmetic(op, a, b);
    }
  }

  static uint64_t text_cost(const Value& v) {
    return v.kind() == Kind::kString || v.kind() == Kind::kBytes ? v.text().size() / 10 : 0;
  }

  Value arithmetic(Op op, const Value& a, const Value& b) {
    static constexpr std::string_view kNames[] = {"_+_", "_-_", "_*_", "_/_", "_%_"};
    std::string_view name = kNames[static_cast<int>(op) - static_cast<int>(Op::kAdd)];
    Value args[] = {a, b};
    // Arithmetic takes two operands of one type: CEL does not convert between int, uint and
    // double (1 + 1.0 is "no such overload").
    if (a.kind() != b.kind()) return no_overload(name, args);
    switch (a.kind()) {
      case Kind::kInt: {
        int64_t x = a.as_int(), y = b.as_int(), r = 0;
        switch (op) {
          case Op::kAdd:
            if (__builtin_add_overflow(x, y, &r)) return overflow();
            return Value::integer(r);
          case Op::kSub:
            if (__builtin_sub_overflow(x, y, &r)) return overflow();
            return Value::integer(r);
          case Op::kMul:
            if (__builtin_mul_overflow(x, y, &r)) return overflow();
            return Value::integer(r);
          case Op::kDiv:
            if (y == 0) return Value::error("division by zero");
            if (x == INT64_MIN && y == -1) return overflow();
            return Value::integer(x / y);
          case Op::kMod:
            if (y == 0) return Value::error("modulus by zero");
            if (x == INT64_MIN && y == -1) return overflow();
            return Value::integer(x % y);
          default:
            break;
        }
        break;
      }
      case Kind::kUint: {
        uint64_t x = a.as_uint(), y = b.as_uint(), r = 0;
        switch (op) {
          case Op::kAdd:
            if (__builtin_add_overflow(x, y, &r)) return overflow();
            return Value::unsigned_integer(r);
          case Op::kSub:
            if (__builtin_sub_overflow(x, y, &r)) return overflow();
            return Value::unsigned_integer(r);
          case Op::kMul:
            if (__builtin_mul_overflow(x, y, &r)) return overflow();
            return Value::unsigned_integer(r);
          case Op::kDiv:
            if (y == 0) return Value::error("division by zero");
            return Value::unsigned_integer(x / y);
          case Op::kMod:
            if (y == 0) return Value::error("modulus by zero");
            return Value::unsigned_integer(x % y);
          default:
            break;
        }
        break;
      }
      case Kind::kDouble: {
        double x = a.as_double(), y = b.as_double();
        switch (op) {
          case Op::kAdd:
            return Value::floating(x + y);
          case Op::kSub:
            return Value::floating(x - y);
          case Op::kMul:
            return Value::floating(x * y);
          case Op::kDiv:
            return Value::floating(x / y);
          default:
            break;  // no % on doubles
        }
        break;
      }
      case Kind::kString:
      case Kind::kBytes:
        if (op != Op::kAdd) break;
        if (!charge_built(a.text().size() + b.text().size()))
          return Value::error(std::string(kCostExceeded));
        spend_.cost += (a.text().size() + b.text().size()) / 10;
        return a.kind() == Kind::kString ? Value::string(a.text() + b.text())
                                         : Value::bytes(a.text() + b.text());
      case Kind::kList: {
        if (op != Op::kAdd) break;
        const List& x = a.as_list();
        const List& y = b.as_list();
        if (!charge_built(x.size() + y.size())) return Value::error(std::string(kCostExceeded));
        spend_.cost += (x.size() + y.size()) / 10;
        List out;
        out.reserve(x.size() + y.size());
        out.insert(out.end(), x.begin(), x.end());
        out.insert(out.end(), y.begin(), y.end());
        return Value::list(std::move(out));
      }
      default:
        break;
    }
    return no_overload(name, args);
  }

  bool charge_built(uint64_t size) {
    built_ += size;
    return built_ <= kMaxBuiltSize;
  }

  // all, exists, exists_one, map and filter over a list's elements or a map's keys.
  Value comprehension(const Node& n) {
    Value range = eval(n.kids[0]);
    if (range.is_error()) return range;
    List keys;
    const List* items = nullptr;
    if (range.kind() == Kind::kList) {
      items = &range.as_list();
    } else if (range.kind() == Kind::kMap) {
      for (const auto& e : range.as_map()) keys.push_back(e.first);
      items = &keys;
    } else {
      return no_overload(n.op == Op::kAll         ? "all"
                         : n.op == Op::kExists    ? "exists"
                         : n.op == Op::kExistsOne ? "exists_one"
                         : n.op == Op::kMapMacro  ? "map"
                                                  : "filter",
                         std::span<const Value>(&range, 1));
    }
    locals_.emplace_back(n.name, Value());
    size_t slot = locals_.size() - 1;
    Value result;
    int64_t matches = 0;
    Value pending;
    bool has_pending = false;
    List out;
    for (const Value& item : *items) {
      locals_[slot].second = item;
      if (spend_.cost > limit_) {
        result = Value::error(std::string(kCostExceeded));
        break;
      }
      if (n.op == Op::kMapMacro || n.op == Op::kFilter) {
        if (n.op == Op::kFilter || n.kids.size() == 3) {
          Value keep = eval(n.kids[1]);
          if (keep.is_error()) {
            result = keep;
            has_pending = true;
            pending = keep;
            break;
          }
          if (!keep.is_bool()) {
            pending = no_overload("filter", std::span<const Value>(&keep, 1));
            has_pending = true;
            break;
          }
          if (!keep.as_bool()) continue;
        }
        if (n.op == Op::kFilter) {
          out.push_back(item);
        } else {
          Value v = eval(n.kids.back());
          if (v.is_error()) {
            pending = v;
            has_pending = true;
            break;
          }
          out.push_back(std::move(v));
        }
        if (!charge_built(1)) {
          pending = Value::error(std::string(kCostExceeded));
          has_pending = true;
          break;
        }
        continue;
      }
      Value v = eval(n.kids[1]);
      if (v.is_error() && std::string_view(v.text()) == kCostExceeded) {
        pending = v;
        has_pending = true;
        break;
      }
      if (!v.is_bool()) {
        // all and exists absorb errors as && and || do; exists_one does not.
        if (!has_pending) {
          pending = v.is_error() ? v : no_overload("_&&_", std::span<const Value>(&v, 1));
          has_pending = true;
        }
        if (n.op == Op::kExistsOne) break;
        continue;
      }
      if (n.op == Op::kAll && !v.as_bool()) {
        result = Value::boolean(false);
        has_pending = false;
        break;
      }
      if (n.op == Op::kExists && v.as_bool()) {
        result = Value::boolean(true);
        has_pending = false;
        break;
      }
      if (n.op == Op::kExistsOne && v.as_bool()) ++matches;
    }
    locals_.pop_back();
    if (!result.is_error() && result.kind() == Kind::kBool) return result;
    if (has_pending) return pending;
    if (result.is_error()) return result;
    switch (n.op) {
      case Op::kAll:
        return Value::boolean(true);
      case Op::kExists:
        return Value::boolean(false);
      case Op::kExistsOne:
        return Value::boolean(matches == 1);
      default:
        return Value::list(std::move(out));
    }
  }

  const Bindings& vars_;
  uint64_t limit_;
  Spend spend_;
  uint64_t built_ = 0;
  std::vector<std::pair<std::string, Value>> locals_;
};

}  // namespace

EvalResult Program::evaluate(const Bindings& vars, uint64_t cost_limit) const {
  Evaluator e(vars, cost_limit);
  Value v = e.eval(*root_);
  return {std::move(v), e.cost()};
}

}  // namespace planter::cel
