#include "sim/store.h"

#include <algorithm>
#include <vector>

namespace planter::sim {

namespace json = boost::json;

const char* event_name(EventType t) {
  switch (t) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "";
}

namespace {
std::string_view meta_view(const json::object& o, std::string_view key) {
  auto* m = o.if_contains("metadata");
  if (!m || !m->is_object()) return {};
  auto* v = m->as_object().if_contains(key);
  return v && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}
}  // namespace

std::string Store::bucket_key(std::string_view ns, std::string_view name) {
  std::string k;
  k.reserve(ns.size() + name.size() + 1);
  k.append(ns).append("/").append(name);
  return k;
}

const Store::Bucket& Store::bucket(const std::string& storage_key) const {
  static const Bucket kEmpty;
  auto it = buckets_.find(storage_key);
  return it == buckets_.end() ? kEmpty : it->second;
}

StoredObject Store::get(const std::string& storage_key, std::string_view ns,
                        std::string_view name) const {
  auto it = buckets_.find(storage_key);
  if (it == buckets_.end()) return nullptr;
  auto obj = it->second.find(bucket_key(ns, name));
  return obj == it->second.end() ? nullptr : obj->second;
}

StoredObject Store::put(const std::string& storage_key, json::object object) {
  ++rv_;
  auto& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object{};
  meta.as_object()["resourceVersion"] = std::to_string(rv_);
  std::string ns(meta_view(object, "namespace"));
  std::string key = bucket_key(ns, meta_view(object, "name"));
  auto stored = std::make_shared<const json::object>(std::move(object));
  auto& slot = buckets_[storage_key][key];
  StoredObject previous = std::move(slot);
  slot = stored;
  index_owners(storage_key, key, previous.get(), stored.get());
  record(Change{rv_, previous ? EventType::kModified : EventType::kAdded, storage_key, ns, stored,
                std::move(previous)});
  return stored;
}

StoredObject Store::erase(const std::string& storage_key, std::string_view ns,
                          std::string_view name) {
  auto it = buckets_.find(storage_key);
  if (it == buckets_.end()) return nullptr;
  auto obj = it->second.find(bucket_key(ns, name));
  if (obj == it->second.end()) return nullptr;
  StoredObject previous = std::move(obj->second);
  index_owners(storage_key, obj->first, previous.get(), nullptr);
  it->second.erase(obj);
  ++rv_;
  json::object last = *previous;
  last["metadata"].as_object()["resourceVersion"] = std::to_string(rv_);
  auto stored = std::make_shared<const json::object>(std::move(last));
  record(Change{rv_, EventType::kDeleted, storage_key, std::string(ns), stored, previous});
  return stored;
}

void Store::erase_all(const std::string& storage_key) {
  auto it = buckets_.find(storage_key);
  if (it == buckets_.end()) return;
  std::vector<std::pair<std::string, std::string>> names;
  for (const auto& [_, obj] : it->second)
    names.emplace_back(meta_view(*obj, "namespace"), meta_view(*obj, "name"));
  for (const auto& [ns, name] : names) erase(storage_key, ns, name);
}

namespace {
std::vector<std::string> owner_uids(const json::object* o) {
  std::vector<std::string> out;
  auto* m = o ? o->if_contains("metadata") : nullptr;
  auto* refs = m && m->is_object() ? m->as_object().if_contains("ownerReferences") : nullptr;
  if (!refs || !refs->is_array()) return out;
  for (const auto& r : refs->as_array())
    if (auto* uid = r.is_object() ? r.as_object().if_contains("uid") : nullptr;
        uid && uid->is_string())
      out.emplace_back(uid->as_string());
  return out;
}
}  // namespace

void Store::index_owners(const std::string& storage_key, const std::string& key,
                         const json::object* before, const json::object* after) {
  auto entry = std::make_pair(storage_key, key);
  for (const auto& uid : owner_uids(before)) {
    auto it = dependents_.find(uid);
    if (it == dependents_.end()) continue;
    it->second.erase(entry);
    if (it->second.empty()) dependents_.erase(it);
  }
  for (const auto& uid : owner_uids(after)) dependents_[uid].insert(entry);
}

std::vector<std::pair<std::string, StoredObject>> Store::dependents(
    std::string_view owner_uid) const {
  std::vector<std::pair<std::string, StoredObject>> out;
  auto it = dependents_.find(std::string(owner_uid));
  if (it == dependents_.end()) return out;
  for (const auto& [storage_key, key] : it->second) {
    const Bucket& b = bucket(storage_key);
    if (auto obj = b.find(key); obj != b.end()) out.emplace_back(storage_key, obj->second);
  }
  return out;
}

void Store::restore(std::vector<std::pair<std::string, json::object>> objects, uint64_t rv) {
  for (auto& [storage_key, object] : objects) {
    std::string key = bucket_key(meta_view(object, "namespace"), meta_view(object, "name"));
    auto stored = std::make_shared<const json::object>(std::move(object));
    index_owners(storage_key, key, nullptr, stored.get());
    buckets_[storage_key][key] = std::move(stored);
  }
  rv_ = std::max(rv_, rv);
  history_.clear();
  compacted_rv_ = rv_;
}

void Store::for_each(
    const std::function<void(const std::string&, const StoredObject&)>& visit) const {
  for (const auto& [storage_key, bucket] : buckets_)
    for (const auto& [_, obj] : bucket) visit(storage_key, obj);
}

void Store::record(Change change) {
  if (journal_) journal_(change);
  history_.push_back(change);
  while (history_.size() > history_limit_) {
    compacted_rv_ = history_.front().resource_version;
    history_.pop_front();
  }
  auto watchers = watches_.find(change.storage_key);
  if (watchers == watches_.end()) return;
  // Copy the ids first: a watch may remove itself (or others) while being told.
  std::vector<uint64_t> ids;
  ids.reserve(watchers->second.size());
  for (const auto& [id, _] : watchers->second) ids.push_back(id);
  for (uint64_t id : ids) {
    watchers = watches_.find(change.storage_key);
    if (watchers == watches_.end()) return;
    auto it = watchers->second.find(id);
    if (it == watchers->second.end()) continue;
    auto cb = it->second;  // the callback may erase the watch
    cb(change);
  }
}

bool Store::changes_since(uint64_t rv, const std::function<void(const Change&)>& visit) const {
  if (rv < compacted_rv_) return false;
  auto first = std::partition_point(history_.begin(), history_.end(),
                                    [&](const Change& c) { return c.resource_version <= rv; });
  for (auto it = first; it != history_.end(); ++it) visit(*it);
  return true;
}

uint64_t Store::oldest_resource_version() const {
  return compacted_rv_;
}

uint64_t Store::add_watch(std::string storage_key, std::function<void(const Change&)> on_change) {
  uint64_t id = next_watch_++;
  watches_[storage_key][id] = std::move(on_change);
  watch_keys_.emplace(id, std::move(storage_key));
  return id;
}

void Store::remove_watch(uint64_t id) {
  auto key = watch_keys_.find(id);
  if (key == watch_keys_.end()) return;
  auto watchers = watches_.find(key->second);
  if (watchers != watches_.end()) {
    watchers->second.erase(id);
    if (watchers->second.empty()) watches_.erase(watchers);
  }
  watch_keys_.erase(key);
}

}  // namespace planter::sim
