#include "kube/informer.h"

#include <atomic>
#include <boost/json.hpp>
#include <future>
#include <random>

#include "kube/rate_limiter.h"
#include "model/jitter_seed.h"
#include "model/object.h"

namespace planter::kube {

namespace json = boost::json;

namespace {

std::string key_of(const json::object& o) {
  std::string ns = string_field(o, {"metadata", "namespace"});
  return ns.empty() ? string_field(o, {"metadata", "name"})
                    : ns + "/" + string_field(o, {"metadata", "name"});
}

}  // namespace

struct Informer::State : std::enable_shared_from_this<Informer::State> {
  Client& client;
  ResourceQuery query;
  InformerHandlers handlers;

  mutable std::mutex mu;  // guards the cache, rv, synced, stats, stopped, watch
  std::map<std::string, json::object> cache;
  std::string rv;
  bool is_synced = false;
  bool stopped = false;
  InformerStats stats;
  std::shared_ptr<Client::WatchHandle> watch;
  int failures = 0;
  std::minstd_rand rng = jitter_generator();

  State(Client& c, ResourceQuery q, InformerHandlers h)
      : client(c), query(std::move(q)), handlers(std::move(h)) {}

  bool is_stopped() {
    std::lock_guard lock(mu);
    return stopped;
  }

  void relist();
  void start_watch();
  void on_event(WatchEvent e);
  void on_end(ApiResult<bool> end);
  void retry(std::function<void(std::shared_ptr<State>)> fn, const ApiError* why);
};

void Informer::State::retry(std::function<void(std::shared_ptr<State>)> fn, const ApiError* why) {
  if (why && handlers.failed && (why->permanent() || why->kind_unknown())) handlers.failed(*why);
  int n;
  {
    std::lock_guard lock(mu);
    n = ++failures;
  }
  auto delay = backoff_delay(n, std::chrono::milliseconds(100), std::chrono::seconds(10), rng());
  std::weak_ptr<State> weak = shared_from_this();
  client.transport().post(
      [weak, fn = std::move(fn)] {
        if (auto self = weak.lock(); self && !self->is_stopped()) fn(self);
      },
      delay);
}

void Informer::State::relist() {
  if (is_stopped()) return;
  std::weak_ptr<State> weak = shared_from_this();
  client.list_async(query, [weak](ApiResult<ObjectList> r) {
    auto self = weak.lock();
    if (!self || self->is_stopped()) return;
    if (!r) return self->retry([](std::shared_ptr<State> s) { s->relist(); }, &r.error());
    // Replace the cache, and tell what changed since it was last right.
    std::map<std::string, json::object> next;
    for (json::object& o : r->items) {
      if (self->handlers.transform) self->handlers.transform(o);
      next.emplace(key_of(o), std::move(o));
    }
    r->items.clear();
    std::map<std::string, json::object> old;
    {
      std::lock_guard lock(self->mu);
      old.swap(self->cache);
      self->cache = std::move(next);
      self->rv = r->resource_version;
      self->is_synced = true;
      self->failures = 0;
      ++self->stats.lists;
    }
    // The cache is read here without the lock: only this thread (the transport's) changes it.
    for (const auto& [k, now] : self->cache) {
      auto before = old.find(k);
      if (before == old.end()) {
        if (self->handlers.added) self->handlers.added(now);
      } else if (string_field(before->second, {"metadata", "resourceVersion"}) !=
                 string_field(now, {"metadata", "resourceVersion"})) {
        if (self->handlers.updated) self->handlers.updated(before->second, now);
      }
    }
    for (const auto& [k, before] : old)
      if (!self->cache.contains(k) && self->handlers.deleted) self->handlers.deleted(before);
    if (self->handlers.synced) self->handlers.synced();
    self->start_watch();
  });
}

void Informer::State::start_watch() {
  std::string from;
  {
    std::lock_guard lock(mu);
    if (stopped) return;
    from = rv;
    ++stats.watches;
  }
  std::weak_ptr<State> weak = shared_from_this();
  auto handle = client.watch(
      query, from,
      [weak](WatchEvent e) {
        if (auto self = weak.lock(); self && !self->is_stopped()) self->on_event(std::move(e));
      },
      [weak](ApiResult<bool> end) {
        if (auto self = weak.lock(); self && !self->is_stopped()) self->on_end(std::move(end));
      });
  std::lock_guard lock(mu);
  watch = handle;
  if (stopped) handle->cancel();
}

void Informer::State::on_event(WatchEvent e) {
  using T = WatchEvent::Type;
  if (e.type == T::Error) {
    // The server ends the stream after an ERROR event; on_end decides what follows.
    auto code = e.object.find("code");
    if (code != e.object.end() && code->value().is_int64() && code->value().get_int64() == 410) {
      std::lock_guard lock(mu);
      rv.clear();  // relist on end
    }
    return;
  }
  std::string version = string_field(e.object, {"metadata", "resourceVersion"});
  if (e.type == T::Bookmark) {
    std::lock_guard lock(mu);
    if (!version.empty()) rv = version;
    ++stats.bookmarks;
    return;
  }
  if (!e.object.contains("apiVersion")) e.object["apiVersion"] = query.api_version;
  if (!e.object.contains("kind")) e.object["kind"] = query.kind;
  if (handlers.transform) handlers.transform(e.object);
  std::string key = key_of(e.object);
  std::optional<json::object> before;
  {
    std::lock_guard lock(mu);
    if (!version.empty()) rv = version;
    ++stats.events;
    failures = 0;
    auto it = cache.find(key);
    if (it != cache.end()) before = it->second;
    if (e.type == T::Deleted)
      cache.erase(key);
    else
      cache[key] = e.object;
  }
  if (e.type == T::Deleted) {
    if (handlers.deleted) handlers.deleted(e.object);
  } else if (before) {
    if (handlers.updated) handlers.updated(*before, e.object);
  } else if (handlers.added) {
    handlers.added(e.object);
  }
}

namespace {
std::atomic<uint64_t> g_watch_restarts{0};
}  // namespace

uint64_t watch_restarts() {
  return g_watch_restarts.load(std::memory_order_relaxed);
}

void Informer::State::on_end(ApiResult<bool> end) {
  if (end || end.error().reason != "Cancelled")
    g_watch_restarts.fetch_add(1, std::memory_order_relaxed);
  bool expired;
  {
    std::lock_guard lock(mu);
    expired = rv.empty() || (!end && end.error().gone());
    if (expired) ++stats.gone;
  }
  if (expired) return relist();
  if (end) return start_watch();  // a clean end (timeout): resume at once
  if (end.error().reason == "Cancelled") return;
  retry([](std::shared_ptr<State> s) { s->start_watch(); }, &end.error());
}

Informer::Informer(Client& client, ResourceQuery query, InformerHandlers handlers)
    : state_(std::make_shared<State>(client, std::move(query), std::move(handlers))) {}

Informer::~Informer() {
  stop();
}

void Informer::start() {
  auto s = state_;
  s->client.transport().post([s] { s->relist(); });
}

void Informer::stop() {
  std::shared_ptr<Client::WatchHandle> w;
  {
    std::lock_guard lock(state_->mu);
    if (state_->stopped) return;
    state_->stopped = true;
    w = state_->watch;
  }
  if (w) w->cancel();
  // Wait for a callback that may be running now to finish.
  Transport& t = state_->client.transport();
  if (!t.on_transport_thread()) {
    std::promise<void> done;
    t.post([&done] { done.set_value(); });
    done.get_future().wait();
  }
}

bool Informer::synced() const {
  std::lock_guard lock(state_->mu);
  return state_->is_synced;
}

std::optional<json::object> Informer::get(const std::string& ns, const std::string& name) const {
  std::lock_guard lock(state_->mu);
  auto it = state_->cache.find(ns.empty() ? name : ns + "/" + name);
  if (it == state_->cache.end()) return std::nullopt;
  return it->second;
}

void Informer::inspect(const std::string& ns, const std::string& name,
                       const std::function<void(const json::object*)>& fn) const {
  std::lock_guard lock(state_->mu);
  auto it = state_->cache.find(ns.empty() ? name : ns + "/" + name);
  fn(it == state_->cache.end() ? nullptr : &it->second);
}

std::vector<json::object> Informer::items() const {
  std::lock_guard lock(state_->mu);
  std::vector<json::object> out;
  out.reserve(state_->cache.size());
  for (const auto& [k, v] : state_->cache) out.push_back(v);
  return out;
}

void Informer::for_each(const std::function<void(const json::object&)>& fn) const {
  std::lock_guard lock(state_->mu);
  for (const auto& [k, v] : state_->cache) fn(v);
}

InformerStats Informer::stats() const {
  std::lock_guard lock(state_->mu);
  return state_->stats;
}

}  // namespace planter::kube
