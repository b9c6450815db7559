#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "model/base64.h"
#include "sim/builtin_tables.h"
#include "sim/handler.h"
#include "sim/json_access.h"
#include "sim/resource_metrics.h"
#include "sim/table.h"

namespace planter::sim {

Response Handler::get(const Cluster::Target& t) {
  if (is_resource_metrics(*t.type)) return metrics_read(t);
  StoredObject obj = c.store_.get(t.type->storage_key(), t.ns, t.name);
  if (!obj) return not_found(*t.type, t.name);
  if (t.subresource == "scale") return scale_of(t, *obj);
  if (t.subresource.empty() && wants_table(req.accept)) {
    if (t.type->custom)
      return Response{200,
                      "application/json",
                      render_table(t.type->printer_columns, {obj.get()},
                                   query(req, "includeObject"), {}, now()),
                      {}};
    if (has_builtin_table(t.type->group, t.type->kind))
      return Response{200,
                      "application/json",
                      render_builtin_table(t.type->group, t.type->kind, {obj.get()},
                                           query(req, "includeObject"), {}, now()),
                      {}};
  }
  return object_response(200, *obj, *t.type);
}

Response Handler::scale_of(const Cluster::Target& t, const json::object& obj) {
  auto* spec = obj.if_contains("spec");
  auto* replicas = spec && spec->is_object() ? spec->as_object().if_contains("replicas") : nullptr;
  auto* st = obj.if_contains("status");
  auto* cur = st && st->is_object() ? st->as_object().if_contains("replicas") : nullptr;
  json::object scale{{"kind", "Scale"},
                     {"apiVersion", "autoscaling/v1"},
                     {"metadata",
                      {{"name", t.name},
                       {"namespace", t.ns},
                       {"uid", meta_string(obj, "uid")},
                       {"resourceVersion", meta_string(obj, "resourceVersion")},
                       {"creationTimestamp", meta_string(obj, "creationTimestamp")}}},
                     {"spec", {{"replicas", replicas ? *replicas : json::value(1)}}},
                     {"status", {{"replicas", cur ? *cur : json::value(0)}}}};
  return Response{200, "application/json", json::serialize(scale), {}};
}

Response Handler::list(const Cluster::Target& t) {
  if (is_resource_metrics(*t.type)) return metrics_read(t);
  auto labels = LabelSelector::parse(query(req, "labelSelector"));
  if (!labels) return bad_request("unable to parse requirement: " + labels.error().message);
  auto fields = FieldSelector::parse(query(req, "fieldSelector"), t.type->kind, t.type->custom);
  if (!fields) return bad_request(fields.error().message);
  size_t limit = 0;
  if (std::string l = query(req, "limit"); !l.empty())
    limit = std::strtoull(l.c_str(), nullptr, 10);
  std::string start;
  uint64_t list_rv = c.store_.resource_version();
  if (std::string cont = query(req, "continue"); !cont.empty()) {
    auto parsed = decode_continue(cont);
    if (!parsed) return bad_request("continue key is not valid: " + parsed.error().message);
    start = parsed->first;
    list_rv = parsed->second;
  }
  const auto& bucket = c.store_.bucket(t.type->storage_key());
  std::string out;
  out.reserve(256);
  out += "{\"kind\":\"" + t.type->kind + "List\",\"apiVersion\":\"" + t.type->api_version() +
         "\",\"metadata\":{\"resourceVersion\":\"" + std::to_string(list_rv) + "\"";
  std::string items;
  size_t count = 0;
  std::string next;
  size_t remaining = 0;
  bool table =
      (t.type->custom || has_builtin_table(t.type->group, t.type->kind)) && wants_table(req.accept);
  std::vector<const json::object*> rows;
  auto it = t.ns.empty() ? bucket.begin() : bucket.lower_bound(t.ns + "/");
  if (!start.empty()) it = bucket.upper_bound(start);
  for (; it != bucket.end(); ++it) {
    if (!t.ns.empty() && !std::string_view(it->first).starts_with(t.ns + "/")) break;
    const json::object& obj = *it->second;
    if (!labels->matches(obj) || !fields->matches(obj)) continue;
    if (limit && count == limit) {
      ++remaining;
      continue;
    }
    if (table)
      rows.push_back(&obj);
    else
      items += (count ? "," : "") + serialize_as(obj, t.type->api_version());
    ++count;
    if (limit && count == limit) next = it->first;
  }
  if (remaining) {
    out += ",\"continue\":\"" + encode_continue(next, list_rv) +
           "\",\"remainingItemCount\":" + std::to_string(remaining);
  }
  if (table) {
    json::object meta{{"resourceVersion", std::to_string(list_rv)}};
    if (remaining) meta["continue"] = encode_continue(next, list_rv);
    std::string include = query(req, "includeObject");
    return Response{200,
                    "application/json",
                    t.type->custom ? render_table(t.type->printer_columns, rows, include,
                                                  std::move(meta), now())
                                   : render_builtin_table(t.type->group, t.type->kind, rows,
                                                          include, std::move(meta), now()),
                    {}};
  }
  out += "},\"items\":[" + items + "]}";
  return Response{200, "application/json", std::move(out), {}};
}

// Continue tokens are opaque base64 of {"v","rv","start"}, like the apiserver's.
std::string Handler::encode_continue(const std::string& key, uint64_t rv) {
  return base64_encode(
      json::serialize(json::object{{"v", "meta.k8s.io/v1"}, {"rv", rv}, {"start", key}}));
}

Result<std::pair<std::string, uint64_t>> Handler::decode_continue(const std::string& token) {
  auto raw = base64_decode(token);
  if (!raw) return Error{"illegal base64 data"};
  boost::system::error_code ec;
  json::value v = json::parse(*raw, ec, {}, kParseLimits);
  if (ec || !v.is_object()) return Error{"malformed continue token"};
  auto* start = v.as_object().if_contains("start");
  auto* rv = v.as_object().if_contains("rv");
  if (!start || !start->is_string() || !rv || !rv->is_number())
    return Error{"malformed continue token"};
  return std::make_pair(std::string(start->as_string()), rv->to_number<uint64_t>());
}

}  // namespace planter::sim
