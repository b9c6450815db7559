#include "plant/fleet_cache.h"

#include <map>
#include <mutex>
#include <vector>

namespace planter::plant {

namespace json = boost::json;

namespace {

// One shared watch. Its listeners are called under `mu` (they only post), which nothing holds
// while it stops an informer: Informer::stop waits for a running callback.
struct SharedWatch {
  std::shared_ptr<kube::Client> client;  // what the informer runs on: kept while it runs
  std::unique_ptr<kube::Informer> informer;
  std::mutex mu;
  bool synced = false, unserved = false;
  std::map<uint64_t, FleetCache::Listener> listeners;
  size_t subscriptions = 0;  // under the cache's lock

  template <typename Fn>
  void tell(Fn&& fn) {
    std::lock_guard lock(mu);
    for (auto& [id, l] : listeners) fn(l);
  }
};

void make_informer(SharedWatch& w, const std::shared_ptr<kube::Client>& client,
                   const std::string& api_version, const std::string& kind, const std::string& ns,
                   std::function<void(json::object&)> transform) {
  using Listener = FleetCache::Listener;
  SharedWatch* wp = &w;  // the informer stops before its watch goes
  kube::InformerHandlers h;
  h.added = [wp](const json::object& o) { wp->tell([&](Listener& l) { l.changed(o); }); };
  h.updated = [wp](const json::object&, const json::object& now) {
    wp->tell([&](Listener& l) { l.changed(now); });
  };
  h.deleted = h.added;
  h.synced = [wp] {
    std::lock_guard lock(wp->mu);
    wp->synced = true;
    wp->unserved = false;
    for (auto& [id, l] : wp->listeners) l.synced();
  };
  h.failed = [wp](const kube::ApiError& e) {
    if (!e.kind_unknown()) return;
    std::lock_guard lock(wp->mu);
    if (wp->unserved) return;
    wp->unserved = true;
    for (auto& [id, l] : wp->listeners) l.unserved();
  };
  h.transform = std::move(transform);
  w.client = client;
  w.informer = std::make_unique<kube::Informer>(
      *client, kube::ResourceQuery{api_version, kind, ns, "", ""}, std::move(h));
}

struct KeptCluster {
  std::string fingerprint;
  std::shared_ptr<kube::Client> client;
  std::map<std::string, std::shared_ptr<SharedWatch>> watches;  // "api_version|kind|ns"
  size_t subscriptions = 0;
};

}  // namespace

struct FleetCache::Impl {
  kube::ClientOptions options;
  mutable std::mutex mu;
  std::map<std::string, KeptCluster> clusters;
  std::map<std::string, std::set<std::string>> held;  // holder -> clusters
  std::map<std::string, size_t> holds;                // cluster -> holders
  uint64_t next_id = 0;

  // What let_go takes out, stopped and destroyed by the caller after `mu` (a client last).
  struct Gone {
    std::vector<std::shared_ptr<SharedWatch>> watches;
    std::vector<std::shared_ptr<kube::Client>> clients;
    ~Gone() {
      for (auto& w : watches)
        if (w->informer) w->informer->stop();
      watches.clear();
    }
  };

  // Of a cluster no holder keeps, under `mu`: takes out the watches no run reads any more, and
  // the cluster itself once nothing is subscribed to it and no run links it.
  void let_go(const std::string& cluster, Gone& gone) {
    auto it = clusters.find(cluster);
    if (it == clusters.end() || holds.contains(cluster)) return;
    KeptCluster& kept = it->second;
    std::erase_if(kept.watches, [&](auto& w) {
      if (w.second->subscriptions > 0) return false;
      gone.watches.push_back(std::move(w.second));
      return true;
    });
    if (kept.subscriptions > 0) return;
    // A run that still holds the client (linked, no watch through the cache yet, or not ended).
    long own = 1;
    for (const auto& [key, w] : kept.watches)
      if (w && w->client == kept.client) ++own;
    if (kept.client && kept.client.use_count() > own) return;
    for (auto& [key, w] : kept.watches) gone.watches.push_back(std::move(w));
    gone.clients.push_back(std::move(kept.client));
    clusters.erase(it);
  }
};

struct FleetCache::Subscription::State {
  std::weak_ptr<FleetCache::Impl> cache;
  std::string cluster, key;
  std::shared_ptr<SharedWatch> watch;
  uint64_t id = 0;
};

void FleetCache::Subscription::quiet() {
  std::lock_guard lock(state_->watch->mu);
  state_->watch->listeners.erase(state_->id);
}

FleetCache::Subscription::~Subscription() {
  quiet();
  auto cache = state_->cache.lock();
  if (!cache) return;
  Impl::Gone gone;
  std::lock_guard lock(cache->mu);
  auto it = cache->clusters.find(state_->cluster);
  if (it == cache->clusters.end()) return;
  KeptCluster& kept = it->second;
  if (kept.subscriptions > 0) --kept.subscriptions;
  if (auto w = kept.watches.find(state_->key);
      w != kept.watches.end() && w->second == state_->watch && w->second->subscriptions > 0)
    --w->second->subscriptions;
  cache->let_go(state_->cluster, gone);
}

const kube::Informer& FleetCache::Subscription::informer() const {
  return *state_->watch->informer;
}

FleetCache::FleetCache(kube::ClientOptions options) : impl_(std::make_shared<Impl>()) {
  impl_->options = std::move(options);
}

FleetCache::~FleetCache() {
  Impl::Gone gone;
  std::lock_guard lock(impl_->mu);
  for (auto& [name, c] : impl_->clusters) {
    for (auto& [key, w] : c.watches) gone.watches.push_back(w);
    gone.clients.push_back(c.client);
  }
  impl_->clusters.clear();
}

Result<std::shared_ptr<kube::Client>> FleetCache::client(const std::string& cluster,
                                                         const std::string& fingerprint,
                                                         const kube::RestConfig& config) {
  // The watches of credentials replaced: stopped as they go, outside the lock (a run still
  // subscribed to one keeps it until it ends).
  std::vector<std::shared_ptr<SharedWatch>> replaced;
  std::lock_guard lock(impl_->mu);
  KeptCluster& kept = impl_->clusters[cluster];
  if (kept.client && kept.fingerprint == fingerprint) return kept.client;
  kube::ClientOptions options = impl_->options;
  options.transport.name = cluster;
  auto made = kube::Client::create(config, options);
  if (!made) {
    if (!kept.client) impl_->clusters.erase(cluster);
    return made.error();
  }
  for (auto& [key, w] : kept.watches) replaced.push_back(std::move(w));
  kept.watches.clear();
  kept.fingerprint = fingerprint;
  kept.client = std::shared_ptr<kube::Client>(std::move(made.value()));
  return kept.client;
}

std::unique_ptr<FleetCache::Subscription> FleetCache::watch(
    const std::string& cluster, const std::shared_ptr<kube::Client>& client,
    const std::string& api_version, const std::string& kind, const std::string& ns,
    std::function<void(json::object&)> transform, Listener listener) {
  auto state = std::make_shared<Subscription::State>();
  state->cache = impl_;
  state->cluster = cluster;
  state->key = api_version + "|" + kind + "|" + ns;
  bool fresh = false;
  {
    std::lock_guard lock(impl_->mu);
    KeptCluster& kept = impl_->clusters[cluster];
    if (!kept.client) kept.client = client;  // let go meanwhile: kept again
    std::shared_ptr<SharedWatch> w;
    if (kept.client == client) {
      std::shared_ptr<SharedWatch>& slot = kept.watches[state->key];
      if (!slot) {
        slot = std::make_shared<SharedWatch>();
        fresh = true;
      }
      ++slot->subscriptions;
      w = slot;
    } else {  // a client new credentials replaced since: watched apart, for this run only
      fresh = true;
      w = std::make_shared<SharedWatch>();
    }
    // Made here, so that whoever finds the watch finds its informer; started below.
    if (fresh) make_informer(*w, client, api_version, kind, ns, std::move(transform));
    ++kept.subscriptions;
    state->watch = std::move(w);
    state->id = ++impl_->next_id;
  }
  SharedWatch& w = *state->watch;
  {
    std::lock_guard lock(w.mu);
    if (w.synced && listener.synced) listener.synced();
    if (w.unserved && listener.unserved) listener.unserved();
    w.listeners.emplace(state->id, std::move(listener));
  }
  if (fresh) w.informer->start();
  return std::unique_ptr<Subscription>(new Subscription(std::move(state)));
}

void FleetCache::done_with(const std::string& cluster) {
  Impl::Gone gone;
  std::lock_guard lock(impl_->mu);
  impl_->let_go(cluster, gone);
}

void FleetCache::retain(const std::string& holder, std::set<std::string> clusters) {
  Impl::Gone gone;
  std::lock_guard lock(impl_->mu);
  std::set<std::string>& before = impl_->held[holder];
  for (const std::string& c : clusters)
    if (!before.contains(c)) ++impl_->holds[c];
  for (const std::string& c : before) {
    if (clusters.contains(c)) continue;
    if (auto it = impl_->holds.find(c); it != impl_->holds.end() && --it->second == 0)
      impl_->holds.erase(it);
    impl_->let_go(c, gone);
  }
  before = std::move(clusters);
  if (before.empty()) impl_->held.erase(holder);
}

size_t FleetCache::clusters() const {
  std::lock_guard lock(impl_->mu);
  return impl_->clusters.size();
}

size_t FleetCache::watches() const {
  std::lock_guard lock(impl_->mu);
  size_t n = 0;
  for (const auto& [name, c] : impl_->clusters) n += c.watches.size();
  return n;
}

}  // namespace planter::plant
