#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "model/strings.h"
#include "sim/handler.h"
#include "sim/json_access.h"
#include "sim/patch.h"
#include "sim/protobuf.h"
#include "sim/scheduling_validation.h"

namespace planter::sim {

Result<json::object> Handler::parse_body() const {
  if (req.body.empty()) return Error{"request body is empty"};
  if (req.content_type.starts_with(kProtobufMedia)) return decode_kubernetes_protobuf(req.body);
  if (req.content_type.find("yaml") != std::string::npos) {
    return yaml_object(req.body);
  }
  boost::system::error_code ec;
  json::value v = json::parse(req.body, ec, {}, kParseLimits);
  if (ec) return Error{"couldn't get version/kind; json parse error: " + ec.message()};
  if (!v.is_object()) return Error{"the body is not a JSON object"};
  return std::move(v.as_object());
}

Response Handler::body_error(const Error& e) const {
  if (req.content_type.starts_with(kProtobufMedia))
    return api_status(415, "UnsupportedMediaType", e.message);
  return bad_request(e.message);
}

WriteContext Handler::write_context(const ResourceType& t, std::string_view subresource) const {
  WriteContext ctx;
  ctx.manager = query(req, "fieldManager");
  if (ctx.manager.empty()) ctx.manager = default_manager(req);
  ctx.api_version = t.api_version();
  ctx.time = rfc3339(now());
  ctx.subresource = std::string(subresource);
  ctx.scope = subresource == "status" ? FieldScope::kStatusOnly
              : t.has_status          ? FieldScope::kWithoutStatus
                                      : FieldScope::kAll;
  return ctx;
}

void Handler::audit(std::string_view verb, const json::object& obj, int code) {
  if (c.audit_)
    c.audit_->request(now(), c.name_, verb, object_id(obj), req.user, code, req.impersonator);
}

Response Handler::create(const Cluster::Target& t0) {
  auto body = parse_body();
  if (!body) return body_error(body.error());
  Cluster::Target t = t0;
  json::object obj = std::move(body.value());
  return create_object(t, std::move(obj), "create", nullptr);
}

// `applied_ctx` non-null: a server-side apply that creates the object.
Response Handler::create_object(Cluster::Target& t, json::object obj, std::string_view verb,
                                const WriteContext* applied_ctx) {
  const ResourceType& type = *t.type;
  if (auto err = check_identity(t, obj, true)) return *err;
  t.name = meta_string(obj, "name");
  if (auto err = check_namespace(t)) return *err;
  std::vector<std::pair<std::string, std::string>> warnings;
  if (auto err = validate_fields(type, obj, warnings)) return *err;
  if (auto err = validate_kind(type, obj)) return *err;
  // An apply that creates the object needs the right to create it too.
  if (verb == "apply")
    if (auto denied = authorize(t, "create")) return *denied;
  if (c.store_.get(type.storage_key(), t.ns, t.name))
    return api_status(409, "AlreadyExists", type.qualified() + " \"" + t.name + "\" already exists",
                      details_for(type, t.name));
  // Ownership covers what the client sent, not what the server defaults afterwards.
  if (applied_ctx) {
    json::object result;
    server_side_apply(nullptr, obj, true, *applied_ctx, result);
    obj = std::move(result);
  } else {
    meta_of(obj).erase("managedFields");
    record_update(nullptr, obj, write_context(type, ""));
  }
  json::value managed =
      meta_of(obj).contains("managedFields") ? meta_of(obj).at("managedFields") : json::value();
  prepare_create(type, obj);
  if (!managed.is_null()) meta_of(obj)["managedFields"] = std::move(managed);
  if (dry_run()) {
    Response r = object_response(201, obj, type);
    r.headers = warnings;
    return r;
  }
  // Audited before it is stored: a sim killed while it stores (its watchers run inside) has
  // the write in its audit log, as the journal has it, so no write it kept goes unaudited.
  audit(verb, obj, 201);
  StoredObject stored = commit(type, std::move(obj));
  after_write(type, nullptr, stored);
  Response r = object_response(201, *stored, type);
  r.headers = warnings;
  return r;
}

Response Handler::update(const Cluster::Target& t) {
  auto body = parse_body();
  if (!body) return body_error(body.error());
  json::object obj = std::move(body.value());
  StoredObject old = c.store_.get(t.type->storage_key(), t.ns, t.name);
  if (!old) return not_found(*t.type, t.name);
  if (t.subresource == "scale") return update_scale(t, *old, obj);
  std::string rv = meta_string(obj, "resourceVersion");
  if (!rv.empty() && rv != meta_string(*old, "resourceVersion")) return conflict(*t.type, t.name);
  return write_existing(t, *old, std::move(obj), "update", false);
}

Response Handler::update_scale(const Cluster::Target& t, const json::object& old,
                               const json::object& scale) {
  auto* spec = scale.if_contains("spec");
  auto* replicas = spec && spec->is_object() ? spec->as_object().if_contains("replicas") : nullptr;
  json::object obj = old;
  auto& s = obj["spec"];
  if (!s.is_object()) s = json::object{};
  s.as_object()["replicas"] = replicas ? *replicas : json::value(0);
  Cluster::Target main = t;
  main.subresource.clear();
  Response r = write_existing(main, old, std::move(obj), "update", false);
  if (r.status != 200) return r;
  return scale_of(t, *c.store_.get(t.type->storage_key(), t.ns, t.name));
}

// The common tail of update, patch and apply on an existing object.
Response Handler::write_existing(const Cluster::Target& t, const json::object& old,
                                 json::object obj, std::string_view verb,
                                 bool managed_fields_done) {
  const ResourceType& type = *t.type;
  if (auto err = check_identity(t, obj, false)) return *err;
  std::vector<std::pair<std::string, std::string>> warnings;
  // Transition rules compare with the object before; a status write keeps the rest as it was.
  if (auto err = validate_fields(type, obj, warnings, t.subresource.empty() ? &old : nullptr))
    return *err;
  json::value managed =
      meta_of(obj).contains("managedFields") ? meta_of(obj).at("managedFields") : json::value();
  carry_over(type, old, obj, t.subresource);
  if (managed_fields_done) {
    if (managed.is_null())
      meta_of(obj).erase("managedFields");
    else
      meta_of(obj)["managedFields"] = std::move(managed);
  }
  if (!managed_fields_done) record_update(&old, obj, write_context(type, t.subresource));
  if (auto err = validate_kind(type, obj)) return *err;
  if (t.subresource.empty())
    if (auto causes = scheduling_update_causes(type, old, obj); !causes.empty())
      return invalid(type, t.name, std::move(causes));
  // An unchanged object is not written (no new resourceVersion, no watch event), unless an
  // apply changed who owns what. Like kube-apiserver, a write that would only move the
  // timestamps of managedFields entries keeps the old ones, so it is no change at all.
  json::object a = old, b = obj;
  for (auto* o : {&a, &b}) {
    meta_of(*o).erase("resourceVersion");
    meta_of(*o).erase("managedFields");
  }
  if (a == b && (verb != "apply" || same_owners(old, obj))) return object_response(200, old, type);
  if (dry_run()) return object_response(200, obj, type);
  // Removing the last finalizer of an object being deleted deletes it.
  if (!meta_string(obj, "deletionTimestamp").empty() && !has_finalizers(obj)) {
    audit(verb, obj, 200);
    StoredObject stored = commit(type, std::move(obj));
    finalize_delete(type, stored);
    return object_response(200, *stored, type);
  }
  audit(verb, obj, 200);
  StoredObject stored = commit(type, std::move(obj));
  after_write(type, std::make_shared<const json::object>(old), stored);
  Response r = object_response(200, *stored, type);
  r.headers = warnings;
  return r;
}

Response Handler::patch(const Cluster::Target& t0) {
  Cluster::Target t = t0;
  const ResourceType& type = *t.type;
  std::string ct = req.content_type.substr(0, req.content_type.find(';'));
  if (ct == "application/apply-patch+yaml" || ct == "application/apply-patch+json") return apply(t);
  bool strategic = ct == "application/strategic-merge-patch+json";
  bool merge = ct == "application/merge-patch+json";
  bool jsonpatch = ct == "application/json-patch+json";
  if ((!strategic && !merge && !jsonpatch) || (strategic && type.custom))
    return api_status(
        415, "UnsupportedMediaType",
        "the body of the request was in an unknown format - accepted media types "
        "include: application/json-patch+json, application/merge-patch+json, "
        "application/apply-patch+yaml" +
            std::string(type.custom ? "" : ", application/strategic-merge-patch+json"));
  StoredObject old = c.store_.get(type.storage_key(), t.ns, t.name);
  if (!old) return not_found(type, t.name);
  boost::system::error_code ec;
  json::value p = json::parse(req.body, ec, {}, kParseLimits);
  if (ec) return bad_request("error decoding patch: " + ec.message());
  json::value current = *old;
  if (t.subresource == "scale") {
    json::value scale = boost::json::parse(scale_of(t, *old).body);
    auto patched = merge       ? apply_merge_patch(scale, p)
                   : jsonpatch ? apply_json_patch(scale, p)
                               : apply_strategic_merge_patch(scale, p);
    if (!patched) return api_status(422, "Invalid", patched.error().message);
    return update_scale(t, *old, patched->as_object());
  }
  auto patched = merge       ? apply_merge_patch(current, p)
                 : jsonpatch ? apply_json_patch(current, p)
                             : apply_strategic_merge_patch(current, p);
  if (!patched) return api_status(422, "Invalid", patched.error().message);
  if (!patched->is_object()) return bad_request("the patch did not produce an object");
  json::object obj = std::move(patched->as_object());
  std::string rv = meta_string(obj, "resourceVersion");
  if (!rv.empty() && rv != meta_string(*old, "resourceVersion")) return conflict(type, t.name);
  return write_existing(t, *old, std::move(obj), "patch", false);
}

Response Handler::apply(Cluster::Target& t) {
  const ResourceType& type = *t.type;
  std::string manager = query(req, "fieldManager");
  if (manager.empty())
    return bad_request("PATCH, application/apply-patch+yaml requests require fieldManager");
  // The apply body is YAML (JSON is YAML too).
  auto parsed = yaml_object(req.body);
  if (!parsed) return bad_request("error decoding YAML: " + parsed.error().message);
  json::object applied = std::move(parsed.value());
  bool force = truthy(query(req, "force"));
  WriteContext ctx = write_context(type, t.subresource);
  StoredObject old = c.store_.get(type.storage_key(), t.ns, t.name);
  if (!old) {
    if (!t.subresource.empty()) return not_found(type, t.name);
    return create_object(t, std::move(applied), "apply", &ctx);
  }
  if (auto err = check_identity(t, applied, false)) return *err;
  std::vector<std::pair<std::string, std::string>> warnings;
  if (auto err = validate_fields(type, applied, warnings)) return *err;
  std::string rv = meta_string(applied, "resourceVersion");
  if (!rv.empty() && rv != meta_string(*old, "resourceVersion")) return conflict(type, t.name);
  json::object result;
  auto conflicts = server_side_apply(old.get(), applied, force, ctx, result);
  if (!conflicts.empty()) return apply_conflict(type, t.name, conflicts);
  Response r = write_existing(t, *old, std::move(result), "apply", true);
  r.headers.insert(r.headers.end(), warnings.begin(), warnings.end());
  return r;
}

Response Handler::apply_conflict(const ResourceType& t, std::string_view name,
                                 const std::vector<ApplyConflict>& conflicts) {
  std::string msg = "Apply failed with " + std::to_string(conflicts.size()) + " conflict" +
                    (conflicts.size() == 1 ? "" : "s") + ": ";
  json::array causes;
  std::map<std::string, std::vector<std::string>> by_manager;
  for (const auto& c : conflicts) {
    std::string who = "conflict with \"" + c.manager + "\" using " + c.api_version;
    by_manager[who].push_back(c.field);
    causes.push_back({{"reason", "FieldManagerConflict"}, {"message", who}, {"field", c.field}});
  }
  bool first = true;
  for (const auto& [who, fields] : by_manager) {
    if (!first) msg += "\n";
    first = false;
    if (fields.size() == 1) {
      msg += who + ": " + fields.front();
    } else {
      msg += "conflicts with" + who.substr(std::string("conflict with").size()) + ":";
      for (const auto& f : fields) msg += "\n- " + f;
    }
  }
  json::object d = details_for(t, name);
  d["causes"] = std::move(causes);
  return api_status(409, "Conflict", msg, std::move(d));
}

}  // namespace planter::sim
