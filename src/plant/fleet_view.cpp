#include "plant/fleet_view.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <set>

#include "fit/snapshot.h"
#include "kube/kubeconfig.h"
#include "model/object.h"
#include "plant/created_clusters.h"
#include "plant/existing_clusters.h"
#include "plant/readiness_check.h"

namespace planter::plant {

namespace json = boost::json;
using std::chrono::milliseconds;

struct FleetView::ClusterLink {
  std::string name;
  Link state = Link::kWaiting;
  std::string why = "not contacted yet";
  std::shared_ptr<kube::Client> client;  // the cache's, when `cached`
  bool cached = false;
  // For a cluster the seed creates: its cluster object and where that is declared.
  std::optional<ObjectRef> object;
  std::string host;
  KubeconfigLocation location;
  std::string kubeconfig_origin;  // "Secret ns/name": what the current client came from
  // With a write identity: the kubeconfig Secret (its secret_origin()) that identity was seen to
  // be allowed to read, and whether a check (or the retry of one) is under way: one at a time.
  std::string secret_readable;
  bool secret_check_pending = false;
};

struct FleetView::WatchEntry {
  std::string api_version, kind, ns, field_selector;
  // Asked for by watch_for_the_fit only: of a kind with a fit_view, or of any with a cache.
  bool fit_only = false;
  // Read by the fit (asked for by watch_for_the_fit, alone or with others): the fit reads a
  // cluster for other clusters' units (a choice among candidates), so it is never closed.
  bool fit_reads = false;
  uint64_t generation = 0;  // of its informer: what an informer started before posts is old news
  std::unique_ptr<kube::Informer> informer;
  // Of cluster objects or kubeconfig Secrets, which lead to workload clusters (watch_for_links).
  bool for_links = false;
  // Instead of `informer`, on a cached link: the cache's watch (fit_only ones, Namespaces, those
  // for links).
  std::unique_ptr<FleetCache::Subscription> shared;
  bool synced = false;
  bool unserved = false;  // the cluster said it serves no such kind

  // Read only for the requirements of units on its cluster: closed while none is open
  // (FleetView::needed).
  bool for_units_only() const { return !fit_reads && !for_links; }
};

namespace {

std::string watch_key(const std::string& av, const std::string& kind, const std::string& ns,
                      const std::string& fs) {
  return av + "|" + kind + "|" + ns + "|" + fs;
}

// What a watch for the fit keeps of each object of a kind, when it keeps less than all of it
// (a Node: what fit::Snapshot::add_node reads); null for a kind kept whole.
std::function<void(json::object&)> fit_view(const std::string& api_version,
                                            const std::string& kind) {
  if (api_version == "v1" && kind == "Node")
    return [](json::object& node) { fit::keep_what_the_fit_reads(node); };
  return nullptr;
}

// What a watch keeps of each object: the fit's view of a kind the fit reads, else the object less
// its metadata.managedFields. No gate reads those, and they are most of a small object's bytes: a
// fleet's watches hold every Namespace of every cluster (client-go's informers are told to drop
// them the same way, by a transform).
std::function<void(json::object&)> kept_view(const std::string& api_version,
                                             const std::string& kind, bool fit_only) {
  if (auto view = fit_only ? fit_view(api_version, kind) : nullptr) return view;
  return [](json::object& o) {
    if (json::value* meta = o.if_contains("metadata"); meta && meta->is_object())
      meta->get_object().erase("managedFields");
  };
}

std::string key_of(const json::object& o) {
  std::string av = string_field(o, {"apiVersion"});
  return object_key(split_api_version(av).first, string_field(o, {"kind"}),
                    string_field(o, {"metadata", "namespace"}),
                    string_field(o, {"metadata", "name"}));
}

}  // namespace

FleetView::FleetView(EventLoop& loop, const Plan& plan,
                     std::map<std::string, kube::RestConfig> known, kube::ClientOptions options,
                     FleetHandlers handlers)
    : loop_(loop),
      options_(std::move(options)),
      handlers_(std::move(handlers)),
      alive_(std::make_shared<bool>(true)) {
  for (auto& [name, config] : known) {
    auto link = std::make_unique<ClusterLink>();
    link->name = name;
    links_[name] = std::move(link);
  }
  // Only the clusters the plan puts something on (or may: a cluster choice's candidates) are
  // linked: a management cluster's other clusters cost a kubeconfig read, a connection and a
  // discovery each, for nothing (the operator plants thousands of Seeds, each on a few of them).
  std::set<std::string_view> used = clusters_in_use(plan);
  for (const ClusterInfo& info : plan.clusters) {
    if ((!info.object && !info.existing) || links_.contains(info.name)) continue;
    if (!used.contains(info.name)) continue;
    auto link = std::make_unique<ClusterLink>();
    link->name = info.name;
    link->object = info.object ? plan.objects[*info.object].ref : *info.existing;
    link->host = host_of(plan, info);
    link->why = fmt::format("{} not provisioned yet", link->object->short_form());
    cluster_objects_[link->host + "\n" + link->object->key()] = info.name;
    links_[info.name] = std::move(link);
  }
  pending_known_ = std::move(known);
}

FleetView::~FleetView() {
  stop();
  *alive_ = false;
  if (!cache_) return;
  // The cache lets go of a cluster no run links or watches any more (unless a Seed keeps it).
  watches_.clear();
  impersonating_.clear();
  for (auto& [name, link] : links_)
    if (link->cached) {
      link->client.reset();
      cache_->done_with(name);
    }
}

void FleetView::start() {
  for (auto& [name, config] : pending_known_) {
    // Of a cluster given up front, the cache keeps the client under the whole configuration.
    std::string fingerprint = cache_ ? "given\n" + kube::fingerprint(config) : "";
    connect(name, std::move(config), fingerprint);
  }
  pending_known_.clear();
  // One watch of a namespace's cluster objects serves every workload cluster defined there.
  for (auto& [name, link] : links_)
    if (link->object)
      watch_for_links(link->host, link->object->api_version, link->object->kind, link->object->ns);
}

void FleetView::stop() {
  for (auto& [cluster, ws] : watches_)
    for (auto& [key, w] : ws) {
      if (w->informer) w->informer->stop();
      if (w->shared) w->shared->quiet();
    }
}

const kube::Informer* FleetView::informer_of(const WatchEntry& w) {
  return w.shared ? &w.shared->informer() : w.informer.get();
}

const FleetView::ClusterLink* FleetView::find_link(const std::string& cluster) const {
  auto it = links_.find(cluster);
  return it == links_.end() ? nullptr : it->second.get();
}

FleetView::Link FleetView::link(const std::string& cluster) const {
  const ClusterLink* l = find_link(cluster);
  return l ? l->state : Link::kAbsent;
}

std::string FleetView::link_status(const std::string& cluster) const {
  const ClusterLink* l = find_link(cluster);
  if (!l) return "not a known cluster";
  return l->why;
}

kube::Client* FleetView::client(const std::string& cluster) {
  auto it = links_.find(cluster);
  if (it == links_.end() || it->second->state != Link::kLinked) return nullptr;
  return it->second->client.get();
}

kube::Client* FleetView::writer(const Unit& unit) {
  kube::Client* own = client(unit.cluster);
  if (!own || !write_identity_ || !write_identity_->impersonates(unit)) return own;
  return impersonating(unit.cluster);
}

bool FleetView::apply(const Unit& unit, json::object body, kube::ApplyOptions options,
                      kube::Client::ObjectDone done) {
  kube::Client* c = writer(unit);
  if (!c) return false;
  c->apply_async(std::move(body), options, std::move(done));
  return true;
}

bool FleetView::remove(const Unit& unit, const ObjectRef& ref, kube::DeleteOptions options,
                       kube::Client::ObjectDone done) {
  kube::Client* c = writer(unit);
  if (!c) return false;
  c->remove_async(ref.api_version, ref.kind, ref.ns, ref.name, std::move(options), std::move(done));
  return true;
}

kube::Client* FleetView::impersonating(const std::string& cluster) {
  kube::Client* own = client(cluster);
  if (!own || !write_identity_) return nullptr;
  std::unique_ptr<kube::Client>& made = impersonating_[cluster];
  if (!made) {
    kube::ClientOptions options = write_identity_->impersonating(options_);
    options.transport.name = cluster;
    auto c = kube::Client::create(own->config(), options);
    if (!c) return nullptr;  // never the client's own identity instead
    made = std::move(c.value());
  }
  return made.get();
}

void FleetView::connect(const std::string& cluster, kube::RestConfig config,
                        const std::string& fingerprint) {
  ClusterLink& l = *links_.at(cluster);
  // Watches on the old client end before it goes.
  if (auto ws = watches_.find(cluster); ws != watches_.end())
    for (auto& [key, w] : ws->second) {
      if (w->informer) w->informer->stop();
      w->informer.reset();
      w->shared.reset();
      w->synced = false;
      ++w->generation;
    }
  bool cached = cache_ && !fingerprint.empty();
  Result<std::shared_ptr<kube::Client>> client = Error{""};
  if (cached) {
    client = cache_->client(cluster, fingerprint, config);
  } else {
    kube::ClientOptions options = options_;
    options.transport.name = cluster;
    auto made = kube::Client::create(std::move(config), std::move(options));
    if (made)
      client = std::shared_ptr<kube::Client>(std::move(made.value()));
    else
      client = made.error();
  }
  if (!client) {
    l.state = Link::kWaiting;
    l.why = client.error().message;
    if (handlers_.linked) handlers_.linked(cluster);
    return;
  }
  impersonating_.erase(cluster);  // made from the old client's configuration
  l.client = std::move(client.value());
  l.cached = cached;
  l.state = Link::kConnecting;
  l.why = "waiting for its API to answer";
  probe(cluster, milliseconds(100));
}

// The API answers when discovery works; until then, try again with backoff.
void FleetView::probe(const std::string& cluster, milliseconds backoff) {
  ClusterLink& l = *links_.at(cluster);
  kube::Client* c = l.client.get();
  auto alive = alive_;
  c->resource_async("v1", "Namespace", [this, alive, cluster, c, backoff](auto r) {
    loop_.post([this, alive, cluster, c, backoff, r = std::move(r)] {
      if (!*alive) return;
      ClusterLink& l = *links_.at(cluster);
      if (l.client.get() != c) return;  // replaced meanwhile
      if (!r && (r.error().unusable_config() || r.error().permanent())) {
        l.state = Link::kFailed;
        l.why = "planter cannot use it as configured: " + r.error().str();
        if (handlers_.linked) handlers_.linked(cluster);
        return;
      }
      if (!r) {
        l.why = "its API does not answer: " + r.error().str();
        loop_.post_after(backoff, [this, alive, cluster, c, backoff] {
          if (!*alive || links_.at(cluster)->client.get() != c) return;
          probe(cluster, std::min(backoff * 2, milliseconds(5000)));
        });
        if (handlers_.linked) handlers_.linked(cluster);
        return;
      }
      l.state = Link::kLinked;
      l.why.clear();
      for (auto& [key, w] : watches_[cluster]) start_watch(cluster, *w);
      if (handlers_.linked) handlers_.linked(cluster);
    });
  });
}

void FleetView::watch(const std::string& cluster, const std::string& api_version,
                      const std::string& kind, const std::string& ns,
                      const std::string& field_selector) {
  auto& ws = watches_[cluster];
  std::string key = watch_key(api_version, kind, ns, field_selector);
  if (auto it = ws.find(key); it != ws.end()) {
    WatchEntry& w = *it->second;
    if (!w.fit_only) return;
    w.fit_only = false;
    // A kind the fit keeps whole (Pods) is read as it is, shared or not.
    if (!fit_view(api_version, kind)) return;
    // Wanted whole now: watched again, whole (its readers wait for the new list).
    if (w.informer || w.shared) {
      close_watch(w);
      if (linked(cluster)) start_watch(cluster, w);
    }
    return;
  }
  add_watch(cluster, key, api_version, kind, ns, field_selector, false, false);
}

void FleetView::watch_for_links(const std::string& cluster, const std::string& api_version,
                                const std::string& kind, const std::string& ns) {
  std::string key = watch_key(api_version, kind, ns, "");
  if (watches_[cluster].contains(key)) return;  // a watch of them all serves as well
  add_watch(cluster, key, api_version, kind, ns, "", false, true);
}

void FleetView::watch_for_the_fit(const std::string& cluster, const std::string& api_version,
                                  const std::string& kind) {
  std::string key = watch_key(api_version, kind, "", "");
  auto& ws = watches_[cluster];
  // A kind kept whole is watched as any other, but where a cache shares it.
  if (!fit_view(api_version, kind) && !cache_)
    watch(cluster, api_version, kind);
  else if (!ws.contains(key))
    add_watch(cluster, key, api_version, kind, "", "", true, false);
  WatchEntry& w = *ws.at(key);
  w.fit_reads = true;
  if (linked(cluster)) start_watch(cluster, w);  // of a resting cluster, kept closed until now
}

void FleetView::close_watch(WatchEntry& w) {
  if (w.informer) w.informer->stop();
  w.informer.reset();
  w.shared.reset();
  w.synced = w.unserved = false;
  ++w.generation;
}

void FleetView::needed(const std::string& cluster, bool needed) {
  if (needed ? resting_.erase(cluster) == 0 : !resting_.insert(cluster).second) return;
  auto it = watches_.find(cluster);
  if (it == watches_.end()) return;
  for (auto& [key, w] : it->second) {
    if (!w->for_units_only()) continue;
    if (!needed)
      close_watch(*w);
    else if (linked(cluster))
      start_watch(cluster, *w);
  }
}

void FleetView::add_watch(const std::string& cluster, const std::string& key,
                          const std::string& api_version, const std::string& kind,
                          const std::string& ns, const std::string& field_selector, bool fit_only,
                          bool for_links) {
  auto w = std::make_unique<WatchEntry>();
  w->api_version = api_version;
  w->kind = kind;
  w->ns = ns;
  w->field_selector = field_selector;
  w->fit_only = fit_only;
  w->for_links = for_links;
  WatchEntry& ref = *w;
  watches_[cluster][key] = std::move(w);
  if (linked(cluster)) start_watch(cluster, ref);
}

namespace {

// A watch every run on a cluster makes alike, whatever it plants: of every object of a kind that
// any run's units wait on by their kind or their namespace, or that leads to workload clusters.
bool read_alike(const std::string& api_version, const std::string& kind, const std::string& ns,
                const std::string& field_selector) {
  if (!ns.empty() || !field_selector.empty()) return false;
  if (api_version == "v1") return kind == "Namespace";
  if (kind == "CustomResourceDefinition") return api_version.starts_with("apiextensions.k8s.io/");
  return is_cluster_kind(api_version, kind);
}

}  // namespace

void FleetView::start_watch(const std::string& cluster, WatchEntry& w) {
  if (w.informer || w.shared) return;
  if (w.for_units_only() && resting_.contains(cluster)) return;
  const ClusterLink& link = *links_.at(cluster);
  kube::Client* c = link.client.get();
  auto alive = alive_;
  WatchEntry* wp = &w;
  auto changed = [this, alive, cluster](const json::object& o) {
    loop_.post([this, alive, cluster, o] {
      if (!*alive) return;
      std::string key = key_of(o);
      if (auto it = cluster_objects_.find(cluster + "\n" + key); it != cluster_objects_.end())
        on_cluster_object(it->second);
      if (auto it = kubeconfig_secrets_.find(cluster + "\n" + key); it != kubeconfig_secrets_.end())
        read_kubeconfig(it->second);
      if (handlers_.changed) handlers_.changed(cluster, key, o);
    });
  };
  kube::InformerHandlers h;
  h.added = changed;
  h.updated = [changed](const json::object&, const json::object& now) { changed(now); };
  h.deleted = changed;
  uint64_t generation = w.generation;
  h.synced = [this, alive, cluster, wp, generation] {
    loop_.post([this, alive, cluster, wp, generation] {
      if (!*alive || wp->generation != generation) return;
      wp->synced = true;
      wp->unserved = false;
      // (A shared watch listed before this run came tells it no change, only this: each
      // cluster object is read here. Its kubeconfig Secret is read as soon as it is watched.)
      for (auto& [name, link] : links_)
        if (link->object && link->host == cluster && wp->kind == link->object->kind)
          on_cluster_object(name);
      if (handlers_.synced) handlers_.synced(cluster);
    });
  };
  auto unserved = [this, alive, cluster, wp, generation] {
    loop_.post([this, alive, cluster, wp, generation] {
      if (!*alive || wp->generation != generation || wp->unserved) return;
      wp->unserved = true;
      if (handlers_.synced) handlers_.synced(cluster);  // as good as listed: there are none
    });
  };
  h.failed = [unserved](const kube::ApiError& e) {
    if (e.kind_unknown()) unserved();
  };
  // Of a cached link, the fit's watches and what every run reads alike are the cache's: the
  // Namespaces (which every unit's namespace waits on: each run of a choice would list every
  // candidate's), the CRDs (a kind's wait) and the cluster objects (a created cluster's wait):
  // every Seed's run in the operator would list the management cluster's whole fleet otherwise.
  if (link.cached &&
      (w.fit_only || w.for_links || read_alike(w.api_version, w.kind, w.ns, w.field_selector))) {
    FleetCache::Listener l;
    l.changed = changed;
    l.synced = h.synced;
    l.unserved = unserved;
    w.shared = cache_->watch(cluster, link.client, w.api_version, w.kind, w.ns,
                             kept_view(w.api_version, w.kind, w.fit_only), std::move(l));
    return;
  }
  h.transform = kept_view(w.api_version, w.kind, w.fit_only);
  w.informer = std::make_unique<kube::Informer>(
      *c, kube::ResourceQuery{w.api_version, w.kind, w.ns, "", w.field_selector}, std::move(h));
  w.informer->start();
}

bool FleetView::any_watch(const std::string& cluster, const std::string& api_version,
                          const std::string& kind, bool WatchEntry::*flag) const {
  auto ws = watches_.find(cluster);
  if (ws == watches_.end()) return false;
  for (const auto& [key, w] : ws->second)
    if (w->api_version == api_version && w->kind == kind && (*w).*flag) return true;
  return false;
}

bool FleetView::synced(const std::string& cluster, const std::string& api_version,
                       const std::string& kind) const {
  return any_watch(cluster, api_version, kind, &WatchEntry::synced);
}

bool FleetView::unserved(const std::string& cluster, const std::string& api_version,
                         const std::string& kind) const {
  return any_watch(cluster, api_version, kind, &WatchEntry::unserved);
}

std::optional<json::object> FleetView::get(const std::string& cluster,
                                           const std::string& api_version, const std::string& kind,
                                           const std::string& ns, const std::string& name) const {
  auto ws = watches_.find(cluster);
  if (ws == watches_.end()) return std::nullopt;
  for (const auto& [key, w] : ws->second)
    if (const kube::Informer* i = informer_of(*w);
        i && w->api_version == api_version && w->kind == kind)
      if (auto o = i->get(ns, name)) return o;
  return std::nullopt;
}

Readiness FleetView::readiness(const std::string& cluster, const std::string& api_version,
                               const std::string& kind, const std::string& ns,
                               const std::string& name, const ReadinessPredicate& p) const {
  std::optional<Readiness> found;
  bool listed = false;
  if (auto ws = watches_.find(cluster); ws != watches_.end())
    for (const auto& [key, w] : ws->second) {
      const kube::Informer* i = informer_of(*w);
      if (found || w->api_version != api_version || w->kind != kind || !i) continue;
      listed = listed || w->synced;
      i->inspect(ns, name, [&](const json::object* o) {
        if (o) found = check_readiness(p, o);
      });
    }
  if (found) return *found;
  Readiness absent = check_readiness(p, nullptr);
  // Not seen because nothing was listed yet: the cluster has not answered, which is not "absent".
  if (!listed && !absent.holds)
    absent.why = fmt::format("not listed yet: cluster {} has not answered ({})", cluster,
                             link_status(cluster));
  return absent;
}

std::vector<json::object> FleetView::items(const std::string& cluster,
                                           const std::string& api_version,
                                           const std::string& kind) const {
  std::vector<json::object> out;
  auto ws = watches_.find(cluster);
  if (ws == watches_.end()) return out;
  for (const auto& [key, w] : ws->second)
    if (const kube::Informer* i = informer_of(*w);
        i && w->api_version == api_version && w->kind == kind)
      for (auto& o : i->items()) out.push_back(std::move(o));
  return out;
}

void FleetView::for_each(const std::string& cluster, const std::string& api_version,
                         const std::string& kind,
                         const std::function<void(const json::object&)>& fn) const {
  auto ws = watches_.find(cluster);
  if (ws == watches_.end()) return;
  for (const auto& [key, w] : ws->second)
    if (w->api_version == api_version && w->kind == kind && w->ns.empty() &&
        w->field_selector.empty() && informer_of(*w))
      informer_of(*w)->for_each(fn);
}

FleetView::KindState FleetView::kind_state(const std::string& cluster,
                                           const std::string& api_version,
                                           const std::string& kind) const {
  auto it = kinds_.find(cluster + "|" + api_version + "|" + kind);
  return it == kinds_.end() ? KindState::kUnknown : it->second;
}

void FleetView::forget_kind(const std::string& cluster, const std::string& api_version,
                            const std::string& kind) {
  auto it = kinds_.find(cluster + "|" + api_version + "|" + kind);
  if (it != kinds_.end() && it->second != KindState::kChecking) it->second = KindState::kMissing;
}

void FleetView::check_kind(const std::string& cluster, const std::string& api_version,
                           const std::string& kind) {
  kube::Client* c = client(cluster);
  if (!c) return;
  std::string key = cluster + "|" + api_version + "|" + kind;
  KindState& state = kinds_[key];
  if (state == KindState::kChecking) return;
  state = KindState::kChecking;
  auto alive = alive_;
  c->rediscover_async(api_version, kind, [this, alive, key, cluster, api_version, kind](auto r) {
    loop_.post([this, alive, key, cluster, api_version, kind, ok = r.ok()] {
      if (!*alive) return;
      kinds_[key] = ok ? KindState::kServed : KindState::kMissing;
      if (handlers_.kind_checked) handlers_.kind_checked(cluster, api_version, kind);
    });
  });
}

// The cluster object of a workload cluster changed: is it provisioned, and where is its
// kubeconfig?
void FleetView::on_cluster_object(const std::string& workload) {
  ClusterLink& l = *links_.at(workload);
  const ObjectRef& r = *l.object;
  auto obj = get(l.host, r.api_version, r.kind, r.ns, r.name);
  if (!obj) {
    if (l.state == Link::kLinked) return;  // keep what works; the object may come back
    bool listed = synced(l.host, r.api_version, r.kind);
    l.state = listed ? Link::kAbsent : Link::kWaiting;
    l.why = fmt::format("{} does not exist yet", r.short_form());
    if (handlers_.linked) handlers_.linked(workload);
    return;
  }
  if (l.state != Link::kLinked) {
    if (auto failed = cluster_failed_for_good(*obj)) {
      l.state = Link::kFailed;  // its units fail at once, with what its status says
      l.why = fmt::format("{} will not be provisioned: {}", r.short_form(), *failed);
      if (handlers_.linked) handlers_.linked(workload);
      return;
    }
  }
  auto where = kubeconfig_location(*obj);
  if (!where) {
    if (l.state == Link::kLinked) return;
    l.state = Link::kWaiting;
    l.why = fmt::format("{}: {}", r.short_form(), where.error());
    if (handlers_.linked) handlers_.linked(workload);
    return;
  }
  bool moved = where.value() != l.location;
  l.location = where.value();
  if (!moved && l.state != Link::kWaiting && l.state != Link::kAbsent) return;
  if (!l.location.secret_name.empty()) {
    kubeconfig_secrets_[l.host + "\n" +
                        object_key("", "Secret", l.location.secret_namespace,
                                   l.location.secret_name)] = workload;
    // One watch of a namespace's Secrets serves every kubeconfig kept there.
    watch_for_links(l.host, "v1", "Secret", l.location.secret_namespace);
  }
  read_kubeconfig(workload);
}

void FleetView::read_kubeconfig(const std::string& workload) {
  ClusterLink& l = *links_.at(workload);
  const KubeconfigLocation& where = l.location;
  std::string bytes, origin;
  if (!where.secret_name.empty()) {
    origin = where.secret_origin();
    auto secret = get(l.host, "v1", "Secret", where.secret_namespace, where.secret_name);
    if (!secret) {
      l.why = fmt::format("waiting for its kubeconfig ({})", origin);
      if (handlers_.linked) handlers_.linked(workload);
      return;
    }
    // The Seed's identity must be allowed to read the credentials it would use: else any Seed
    // could reach any cluster whose kubeconfig the operator can read.
    if (write_identity_ && l.host == kSelf && l.secret_readable != origin) {
      check_secret_access(workload, milliseconds(500));
      return;
    }
    auto in_secret = kubeconfig_in_secret(*secret, where);
    if (!in_secret) {
      l.why = in_secret.error().message;
      if (handlers_.linked) handlers_.linked(workload);
      return;
    }
    bytes = std::move(in_secret.value());
  } else {
    origin = where.url;
    Result<std::string> got = kubeconfig_at_url(where);
    if (!got) {
      l.why = got.error().message;
      if (handlers_.linked) handlers_.linked(workload);
      return;
    }
    bytes = std::move(got.value());
  }
  if (origin == l.kubeconfig_origin && l.state != Link::kWaiting && l.state != Link::kAbsent)
    return;
  Result<kube::RestConfig> rest = kubeconfig_rest_config(bytes, origin, where);
  if (!rest) {
    l.why = rest.error().message;
    if (handlers_.linked) handlers_.linked(workload);
    return;
  }
  l.kubeconfig_origin = origin;
  connect(workload, std::move(rest.value()), origin + "\n" + bytes);
}

void FleetView::check_secret_access(const std::string& workload, milliseconds backoff) {
  ClusterLink& l = *links_.at(workload);
  if (l.secret_check_pending) return;
  kube::Client* c = impersonating();
  const KubeconfigLocation& where = l.location;
  std::string origin = where.secret_origin();
  if (!c) {
    l.why =
        fmt::format("cannot act as {} to read its kubeconfig ({})", write_identity_->user, origin);
    if (handlers_.linked) handlers_.linked(workload);
    return;
  }
  l.secret_check_pending = true;
  auto alive = alive_;
  c->get_async("v1", "Secret", where.secret_namespace, where.secret_name,
               [this, alive, workload, origin, backoff](auto r) {
                 loop_.post([this, alive, workload, origin, backoff, r = std::move(r)] {
                   if (!*alive) return;
                   ClusterLink& l = *links_.at(workload);
                   if (r) {
                     l.secret_check_pending = false;
                     l.secret_readable = origin;
                     read_kubeconfig(workload);
                     return;
                   }
                   // Tried again with backoff, a denial slowly: an administrator may grant the
                   // right meanwhile. The check stays pending until the retry, so changes of the
                   // Secret or the cluster object in between start no second one.
                   l.why = fmt::format("{} may not read its kubeconfig ({}): {}",
                                       write_identity_->user, origin, r.error().str());
                   milliseconds next =
                       r.error().forbidden() ? std::max(backoff, milliseconds(5000)) : backoff;
                   loop_.post_after(next, [this, alive, workload, next] {
                     if (!*alive) return;
                     links_.at(workload)->secret_check_pending = false;
                     check_secret_access(workload, std::min(next * 2, milliseconds(60000)));
                   });
                   if (handlers_.linked) handlers_.linked(workload);
                 });
               });
}

}  // namespace planter::plant
