#include "sim/protobuf.h"

#include <boost/json/array.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <vector>

#include "model/base64.h"
#include "sim/audit.h"
#include "sim/protobuf_schema.h"
#include "sim/tls.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

using proto::Field;
using proto::Kind;
using proto::Message;

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }

  Result<uint64_t> varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return Error{"truncated varint"};
      auto b = static_cast<uint8_t>(data_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    return Error{"varint too long"};
  }

  Result<std::string_view> bytes() {
    auto n = varint();
    if (!n) return n.error();
    if (*n > data_.size() - pos_) return Error{"truncated length-delimited field"};
    std::string_view out = data_.substr(pos_, *n);
    pos_ += *n;
    return out;
  }

  Result<bool> skip(int wire) {
    switch (wire) {
      case 0: {
        auto v = varint();
        if (!v) return v.error();
        return true;
      }
      case 1:
        pos_ += 8;
        break;
      case 2: {
        auto b = bytes();
        if (!b) return b.error();
        return true;
      }
      case 5:
        pos_ += 4;
        break;
      default:
        return Error{"unsupported wire type " + std::to_string(wire)};
    }
    if (pos_ > data_.size()) return Error{"truncated field"};
    return true;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

Result<json::object> decode(std::string_view data, const Message& m, std::string* raw = nullptr);

Result<std::pair<std::string, std::string>> map_entry(std::string_view data) {
  Reader r(data);
  std::string key, value;
  while (!r.done()) {
    auto tag = r.varint();
    if (!tag) return tag.error();
    int number = static_cast<int>(*tag >> 3), wire = static_cast<int>(*tag & 7);
    if (wire != 2) {
      auto s = r.skip(wire);
      if (!s) return s.error();
      continue;
    }
    auto b = r.bytes();
    if (!b) return b.error();
    if (number == 1) key = std::string(*b);
    if (number == 2) value = std::string(*b);
  }
  return std::make_pair(key, value);
}

// resource.Quantity: its string (field 1).
Result<std::string> quantity_value(std::string_view data) {
  Reader r(data);
  std::string out;
  while (!r.done()) {
    auto tag = r.varint();
    if (!tag) return tag.error();
    int wire = static_cast<int>(*tag & 7);
    if ((*tag >> 3) == 1 && wire == 2) {
      auto b = r.bytes();
      if (!b) return b.error();
      out = std::string(*b);
    } else if (auto s = r.skip(wire); !s) {
      return s.error();
    }
  }
  return out;
}

// intstr.IntOrString: type (0 int, 1 string), intVal, strVal.
Result<json::value> int_or_string(std::string_view data) {
  Reader r(data);
  int64_t type = 0, number = 0;
  std::string text;
  while (!r.done()) {
    auto tag = r.varint();
    if (!tag) return tag.error();
    int field = static_cast<int>(*tag >> 3), wire = static_cast<int>(*tag & 7);
    if (wire == 0 && (field == 1 || field == 2)) {
      auto v = r.varint();
      if (!v) return v.error();
      (field == 1 ? type : number) = static_cast<int64_t>(*v);
    } else if (wire == 2 && field == 3) {
      auto b = r.bytes();
      if (!b) return b.error();
      text = std::string(*b);
    } else if (auto s = r.skip(wire); !s) {
      return s.error();
    }
  }
  if (type == 1) return json::value(text);
  return json::value(static_cast<int64_t>(static_cast<int32_t>(number)));
}

Result<json::value> time_value(std::string_view data) {
  Reader r(data);
  int64_t seconds = 0;
  while (!r.done()) {
    auto tag = r.varint();
    if (!tag) return tag.error();
    auto v = r.varint();
    if (!v) return v.error();
    if ((*tag >> 3) == 1) seconds = static_cast<int64_t>(*v);
  }
  if (seconds == 0) return json::value();  // the zero Time: unset
  return json::value(rfc3339(std::chrono::system_clock::time_point(std::chrono::seconds(seconds))));
}

Result<json::object> decode(std::string_view data, const Message& m, std::string* raw) {
  json::object out;
  Reader r(data);
  while (!r.done()) {
    auto tag = r.varint();
    if (!tag) return tag.error();
    int number = static_cast<int>(*tag >> 3), wire = static_cast<int>(*tag & 7);
    const Field* f = nullptr;
    for (const auto& field : m.fields)
      if (field.number == number) f = &field;
    if (!f) {
      auto s = r.skip(wire);
      if (!s) return s.error();
      continue;
    }
    json::value value;
    if (f->kind == Kind::kInt64 || f->kind == Kind::kBool) {
      if (wire != 0) return Error{std::string("field ") + f->name + " has the wrong wire type"};
      auto v = r.varint();
      if (!v) return v.error();
      // Zero scalars of plain (non-pointer) Go fields are omitted, as JSON's omitempty does.
      if (*v == 0 && !f->keep_zero && !f->repeated) continue;
      // int32 fields carry negative numbers sign-extended to 64 bits.
      value = f->kind == Kind::kBool ? json::value(*v != 0) : json::value(static_cast<int64_t>(*v));
    } else {
      if (wire != 2) return Error{std::string("field ") + f->name + " has the wrong wire type"};
      auto b = r.bytes();
      if (!b) return b.error();
      switch (f->kind) {
        case Kind::kString:
          // Kubernetes' proto2 messages carry empty optional strings; JSON omits them.
          if (b->empty() && !f->repeated) continue;
          value = json::string(*b);
          break;
        case Kind::kRaw:
          if (raw) *raw = std::string(*b);
          continue;
        case Kind::kTime: {
          auto t = time_value(*b);
          if (!t) return t.error();
          if (t->is_null()) continue;
          value = std::move(*t);
          break;
        }
        case Kind::kMessage: {
          auto sub = decode(*b, *f->message);
          if (!sub) return sub.error();
          value = std::move(*sub);
          break;
        }
        case Kind::kIntOrString: {
          auto v = int_or_string(*b);
          if (!v) return v.error();
          value = std::move(*v);
          break;
        }
        case Kind::kQuantityMap: {
          auto e = map_entry(*b);
          if (!e) return e.error();
          auto q = quantity_value(e->second);
          if (!q) return q.error();
          auto& map = out[f->name];
          if (!map.is_object()) map = json::object{};
          map.as_object()[e->first] = json::string(*q);
          continue;
        }
        case Kind::kStringMap:
        case Kind::kBytesMap: {
          auto e = map_entry(*b);
          if (!e) return e.error();
          auto& map = out[f->name];
          if (!map.is_object()) map = json::object{};
          map.as_object()[e->first] = f->kind == Kind::kBytesMap
                                          ? json::string(base64_encode(e->second))
                                          : json::string(e->second);
          continue;
        }
        default:
          break;
      }
    }
    if (f->repeated) {
      auto& arr = out[f->name];
      if (!arr.is_array()) arr = json::array{};
      arr.as_array().push_back(std::move(value));
    } else {
      out[f->name] = std::move(value);
    }
  }
  return out;
}

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

void put_bytes(std::string& out, int number, std::string_view bytes) {
  put_varint(out, static_cast<uint64_t>(number) << 3 | 2);
  put_varint(out, bytes.size());
  out.append(bytes);
}

}  // namespace

Result<json::object> decode_kubernetes_protobuf(std::string_view body) {
  if (body.size() < 4 || body.substr(0, 4) != std::string_view("k8s\0", 4))
    return Error{"the protobuf body lacks the \"k8s\\0\" envelope prefix"};
  std::string raw;
  auto unknown = decode(body.substr(4), proto::kUnknown, &raw);
  if (!unknown) return Error{"malformed protobuf envelope: " + unknown.error().message};
  auto* tm = unknown->if_contains("typeMeta");
  std::string api_version, kind;
  if (tm && tm->is_object()) {
    if (auto* v = tm->as_object().if_contains("apiVersion"))
      api_version = std::string(v->as_string());
    if (auto* v = tm->as_object().if_contains("kind")) kind = std::string(v->as_string());
  }
  const Message* m = proto::message_for(api_version, kind);
  if (!m)
    return Error{"planter sim does not decode protobuf bodies of " + api_version + " " + kind +
                 "; send it as application/json"};
  auto obj = decode(raw, *m);
  if (!obj) return Error{"malformed protobuf " + kind + ": " + obj.error().message};
  json::object out{{"apiVersion", api_version}, {"kind", kind}};
  for (auto& [k, v] : *obj) out[k] = std::move(v);
  return out;
}

std::string empty_openapi_v2_protobuf() {
  std::string info;
  put_bytes(info, 1, "Kubernetes");
  put_bytes(info, 2, "v1.32.0");
  std::string doc;
  put_bytes(doc, 1, "2.0");
  put_bytes(doc, 2, info);
  return doc;
}

}  // namespace planter::sim
