#include "kube/client.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <future>
#include <mutex>

#include "kube/json_limits.h"
#include "kube/watch_decoder.h"
#include "model/object.h"

namespace planter::kube {

namespace json = boost::json;
using SteadyClock = std::chrono::steady_clock;

namespace {

std::string query_escape(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

void add_query(std::string& q, std::string_view key, std::string_view value) {
  if (value.empty()) return;
  q += q.empty() ? '?' : '&';
  q.append(key).append("=").append(query_escape(value));
}

// What one request is about, before the REST mapper turns it into a path.
struct Spec {
  std::string api_version, kind, ns, name;
  bool default_namespace = true;  // an empty ns means the context's (false: all namespaces)
  std::string subresource;
  std::string method = "GET";
  std::string query;  // "?a=b" or empty
  std::optional<json::object> body;
  std::string content_type;
  bool idempotent = true;
  std::function<void(std::chrono::microseconds, int)> on_answer;  // ApplyOptions::on_answer
};

Spec spec_for(const json::object& object) {
  Spec s;
  s.api_version = string_field(object, {"apiVersion"});
  s.kind = string_field(object, {"kind"});
  s.ns = string_field(object, {"metadata", "namespace"});
  s.name = string_field(object, {"metadata", "name"});
  return s;
}

}  // namespace

struct Client::Impl {
  ClientOptions options;
  RestMapper mapper;
  mutable std::mutex disc_mu;
  bool refreshing = false;
  bool discovered = false;
  bool aggregated = false;
  int refreshes = 0;
  std::optional<ApiError> discovery_failure;  // of the last refresh
  SteadyClock::time_point last_refresh{};
  std::vector<std::function<void()>> after_refresh;
  // Forced refreshes asked for while one was in flight: that one may have been sent before the
  // change the caller knows of, so they wait for the next.
  std::vector<std::function<void()>> after_next_refresh;

  std::unique_ptr<Transport> transport;  // last: destroyed first, so no callback outlives us

  void refresh_then(std::function<void()> fn, bool force);
  void discover();
  std::string discovery_key() const;
  // A client that never discovered takes a fresh table of the process's cache, once; true when
  // it did.
  bool adopt_cached_discovery() {
    {
      std::lock_guard lock(disc_mu);
      if (discovered || refreshing) return false;
    }
    auto table = options.discovery_cache->find(discovery_key());
    if (!table) return false;
    mapper.replace(std::move(table));
    return true;
  }
  void resource(std::string api_version, std::string kind, ResourceDone done);
  void request(Spec spec, ObjectDone done);
  void list_page(std::shared_ptr<ObjectList> acc, ResourceQuery q, std::string cont, int page,
                 ListDone done);

  template <class T, class Start>
  ApiResult<T> wait(Start start) {
    if (transport->on_transport_thread())
      return client_error("Deadlock",
                          "a synchronous Kubernetes call from a transport callback; use the "
                          "asynchronous form");
    std::promise<ApiResult<T>> p;
    auto f = p.get_future();
    start([&p](ApiResult<T> r) { p.set_value(std::move(r)); });
    return f.get();
  }
};

std::shared_ptr<const RestMapper::Table> DiscoveryCache::find(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = kept_.find(key);
  if (it == kept_.end() || SteadyClock::now() - it->second.at >= fresh_for_) return nullptr;
  return it->second.table;
}

void DiscoveryCache::keep(const std::string& key, std::shared_ptr<const RestMapper::Table> table) {
  if (!table) return;
  std::lock_guard lock(mu_);
  kept_[key] = {std::move(table), SteadyClock::now()};
}

std::string Client::Impl::discovery_key() const {
  const RestConfig& c = transport->config();
  // Who asks matters in principle (discovery is authorized): the credentials' kind and the
  // impersonated user are part of the key.
  size_t who = std::hash<std::string>{}(c.auth.token + "\n" + c.auth.token_file + "\n" +
                                        c.auth.client_certificate_pem + "\n" + c.auth.username);
  return fmt::format("{}\n{}\n{:x}\n{}\n{}", c.server, c.tls_server_name, who, c.auth.impersonate,
                     options.transport.impersonate_user);
}

void Client::Impl::refresh_then(std::function<void()> fn, bool force) {
  {
    std::lock_guard lock(disc_mu);
    bool recent = discovered && SteadyClock::now() - last_refresh < options.discovery_refresh;
    if (recent && !force) {
      // Fall through and run fn outside the lock.
    } else {
      if (refreshing && force) {
        after_next_refresh.push_back(std::move(fn));
        return;
      }
      after_refresh.push_back(std::move(fn));
      if (refreshing) return;
      refreshing = true;
      fn = nullptr;
    }
  }
  if (fn) return fn();
  discover();
}

void Client::Impl::discover() {
  struct State {
    std::mutex mu;
    int pending = 0;
    std::vector<ApiResource> resources;
    std::optional<ApiError> error;
    bool aggregated = true;
    std::string api, apis;  // the aggregated documents, as received
  };
  auto state = std::make_shared<State>();
  auto finish_one = [this, state] {
    {
      std::lock_guard lock(state->mu);
      if (--state->pending > 0) return;
    }
    std::vector<std::function<void()>> waiters;
    bool again = false;
    {
      if (!state->error && state->aggregated) {
        auto table = aggregated_table(state->api, state->apis);
        if (table)
          mapper.replace(std::move(table.value()));
        else
          state->error = client_error("Decode", "discovery: " + table.error().message);
      } else if (!state->error) {
        // A server that answered one root aggregated and the other not: both kinds merge.
        for (auto [root, body] :
             {std::pair{"/api", &state->api}, std::pair{"/apis", &state->apis}}) {
          if (body->empty()) continue;
          auto parsed = parse_aggregated_text(root, *body);
          if (!parsed) {
            state->error = client_error("Decode", "discovery: " + parsed.error().message);
            break;
          }
          for (auto& a : parsed.value()) state->resources.push_back(std::move(a));
        }
        if (!state->error) mapper.replace(std::move(state->resources));
      }
      if (!state->error && options.discovery_cache)
        options.discovery_cache->keep(discovery_key(), mapper.table());
      std::lock_guard lock(disc_mu);
      if (!state->error) aggregated = state->aggregated;
      discovery_failure = state->error;
      ++refreshes;
      discovered = true;
      last_refresh = SteadyClock::now();
      waiters.swap(after_refresh);
      again = !after_next_refresh.empty();
      if (again) after_refresh.swap(after_next_refresh);
      refreshing = again;
    }
    for (auto& w : waiters) w();
    if (again) discover();
  };
  state->pending = 2;
  for (const char* root : {"/api", "/apis"}) {
    HttpRequest req;
    req.path = root;
    req.accept = kAggregatedDiscoveryAccept;
    transport->send(req, [this, state, finish_one, root](ApiResult<HttpResponse> r) {
      auto fail = [&](ApiError e) {
        {
          std::lock_guard lock(state->mu);
          state->error = std::move(e);
        }
        finish_one();
      };
      if (!r) return fail(r.error());
      if (is_aggregated_discovery(r->content_type)) {
        {  // read when both are here (aggregated_table: parsed once per distinct pair)
          std::lock_guard lock(state->mu);
          (std::string_view(root) == "/api" ? state->api : state->apis) = std::move(r->body);
        }
        return finish_one();
      }
      json::error_code ec;
      json::value doc = json::parse(r->body, ec, {}, json_limits());
      if (ec) return fail(client_error("Decode", fmt::format("discovery: {} is not JSON", root)));
      // Legacy discovery: one more request per group-version.
      std::vector<std::string> gvs = parse_group_versions(doc);
      {
        std::lock_guard lock(state->mu);
        state->aggregated = false;
        state->pending += static_cast<int>(gvs.size());
      }
      for (const std::string& gv : gvs) {
        HttpRequest sub;
        sub.path = (gv.find('/') == std::string::npos ? "/api/" : "/apis/") + gv;
        transport->send(sub, [state, finish_one](ApiResult<HttpResponse> rr) {
          // A group-version that fails (an aggregated API that is down) is left out, as
          // kubectl does; the rest still maps.
          if (rr) {
            json::error_code ec2;
            json::value d = json::parse(rr->body, ec2, {}, json_limits());
            if (!ec2) {
              if (auto parsed = parse_resource_list(d)) {
                std::lock_guard lock(state->mu);
                for (auto& a : parsed.value()) state->resources.push_back(std::move(a));
              }
            }
          }
          finish_one();
        });
      }
      finish_one();
    });
  }
}

void Client::Impl::resource(std::string api_version, std::string kind, ResourceDone done) {
  if (auto r = mapper.find(api_version, kind)) return done(std::move(*r));
  if (options.discovery_cache && adopt_cached_discovery())
    if (auto r = mapper.find(api_version, kind)) return done(std::move(*r));
  refresh_then(
      [this, api_version, kind, done = std::move(done)] {
        if (auto r = mapper.find(api_version, kind)) return done(std::move(*r));
        std::optional<ApiError> failure;
        {
          std::lock_guard lock(disc_mu);
          failure = discovery_failure;
        }
        // Discovery itself failed: that is the error (unauthorized, unreachable, ...).
        if (failure) return done(std::move(*failure));
        ApiError e = client_error(
            "NoKindMatch",
            fmt::format("no matches for kind \"{}\" in version \"{}\"", kind, api_version));
        e.code = 404;
        done(std::move(e));
      },
      false);
}

void Client::Impl::request(Spec spec, ObjectDone done) {
  std::string av = spec.api_version, kind = spec.kind;
  resource(
      av, kind,
      [this, spec = std::move(spec), done = std::move(done)](ApiResult<ApiResource> r) mutable {
        if (!r) return done(r.error());
        const ApiResource& res = r.value();
        std::string ns;
        if (res.namespaced)
          ns = spec.ns.empty() && spec.default_namespace ? transport->config().ns : spec.ns;
        HttpRequest req;
        req.method = spec.method;
        req.path = res.path(ns, spec.name);
        if (!spec.subresource.empty()) req.path += "/" + spec.subresource;
        req.path += spec.query;
        req.idempotent = spec.idempotent;
        req.content_type = spec.content_type;
        if (spec.body) {
          json::object& body = *spec.body;
          if (res.namespaced && !ns.empty()) {
            json::value& m = body["metadata"];
            if (!m.is_object()) m = json::object{};
            if (!m.get_object().contains("namespace")) m.get_object()["namespace"] = ns;
          }
          req.body = json::serialize(body);
        }
        transport->send(
            std::move(req), [done = std::move(done),
                             on_answer = std::move(spec.on_answer)](ApiResult<HttpResponse> resp) {
              if (!resp) return done(resp.error());
              if (on_answer) on_answer(resp->on_wire, resp->status);
              json::error_code ec;
              json::value v = json::parse(resp->body, ec, {}, json_limits());
              if (ec || !v.is_object())
                return done(client_error(
                    "Decode",
                    fmt::format("the server's answer (HTTP {}, {} bytes) is not a JSON object{}",
                                resp->status, resp->body.size(), ec ? ": " + ec.message() : "")));
              done(std::move(v.get_object()));
            });
      });
}

void Client::Impl::list_page(std::shared_ptr<ObjectList> acc, ResourceQuery q, std::string cont,
                             int page, ListDone done) {
  Spec s;
  s.api_version = q.api_version;
  s.kind = q.kind;
  s.ns = q.ns;
  s.default_namespace = false;
  add_query(s.query, "labelSelector", q.label_selector);
  add_query(s.query, "fieldSelector", q.field_selector);
  if (page > 0) add_query(s.query, "limit", std::to_string(page));
  add_query(s.query, "continue", cont);
  request(std::move(s),
          [this, acc, q, page, done = std::move(done)](ApiResult<json::object> r) mutable {
            if (!r) return done(r.error());
            json::object& list = r.value();
            if (auto items = list.find("items"); items != list.end() && items->value().is_array()) {
              // A list's items carry neither apiVersion nor kind; put them back, as client-go does.
              std::string kind = q.kind;
              for (json::value& item : items->value().get_array()) {
                if (!item.is_object()) continue;
                json::object& o = item.get_object();
                if (!o.contains("apiVersion")) o["apiVersion"] = q.api_version;
                if (!o.contains("kind")) o["kind"] = kind;
                acc->items.push_back(std::move(o));
              }
            }
            std::string next;
            next = string_field(list, {"metadata", "continue"});
            acc->resource_version = string_field(list, {"metadata", "resourceVersion"});
            if (next.empty()) return done(std::move(*acc));
            list_page(acc, std::move(q), next, page, std::move(done));
          });
}

Result<std::unique_ptr<Client>> Client::create(RestConfig config, ClientOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  auto t = Transport::create(std::move(config), options.transport);
  if (!t) return t.error();
  impl->transport = std::move(t.value());
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

const RestConfig& Client::config() const {
  return impl_->transport->config();
}
Transport& Client::transport() {
  return *impl_->transport;
}

void Client::resource_async(std::string api_version, std::string kind, ResourceDone done) {
  impl_->resource(std::move(api_version), std::move(kind), std::move(done));
}

void Client::rediscover_async(std::string api_version, std::string kind, ResourceDone done) {
  impl_->refresh_then(
      [this, api_version = std::move(api_version), kind = std::move(kind),
       done = std::move(done)]() mutable {
        impl_->resource(std::move(api_version), std::move(kind), std::move(done));
      },
      true);
}

ApiResult<ApiResource> Client::resource(std::string_view api_version, std::string_view kind) {
  return impl_->wait<ApiResource>([&](ResourceDone d) {
    impl_->resource(std::string(api_version), std::string(kind), std::move(d));
  });
}

bool Client::aggregated_discovery() const {
  std::lock_guard lock(impl_->disc_mu);
  return impl_->aggregated;
}

int Client::discovery_refreshes() const {
  std::lock_guard lock(impl_->disc_mu);
  return impl_->refreshes;
}

void Client::get_async(std::string api_version, std::string kind, std::string ns, std::string name,
                       ObjectDone done) {
  Spec s;
  s.api_version = std::move(api_version);
  s.kind = std::move(kind);
  s.ns = std::move(ns);
  s.name = std::move(name);
  impl_->request(std::move(s), std::move(done));
}

ApiResult<json::object> Client::get(const std::string& api_version, const std::string& kind,
                                    const std::string& ns, const std::string& name) {
  return impl_->wait<json::object>(
      [&](ObjectDone d) { get_async(api_version, kind, ns, name, std::move(d)); });
}

void Client::list_async(ResourceQuery query, ListDone done, int page_size) {
  impl_->list_page(std::make_shared<ObjectList>(), std::move(query), "", page_size,
                   std::move(done));
}

ApiResult<ObjectList> Client::list(const ResourceQuery& query, int page_size) {
  return impl_->wait<ObjectList>([&](ListDone d) { list_async(query, std::move(d), page_size); });
}

namespace {

Spec apply_spec(const json::object& object, const ApplyOptions& options) {
  Spec s = spec_for(object);
  s.method = "PATCH";
  add_query(s.query, "fieldManager", options.field_manager);
  if (options.force) add_query(s.query, "force", "true");
  if (options.dry_run) add_query(s.query, "dryRun", "All");
  if (!options.field_validation.empty())
    add_query(s.query, "fieldValidation", options.field_validation);
  s.content_type = "application/apply-patch+yaml";  // JSON is YAML
  s.body = object;
  s.idempotent = true;  // applying the same intent twice is the same as once
  s.on_answer = options.on_answer;
  return s;
}

}  // namespace

void Client::apply_async(json::object object, ApplyOptions options, ObjectDone done) {
  Spec s = apply_spec(object, options);
  if (s.name.empty())
    return done(client_error(
        "Invalid", fmt::format("{} {} has no metadata.name to apply", s.api_version, s.kind)));
  impl_->request(std::move(s), std::move(done));
}

ApiResult<json::object> Client::apply(const json::object& object, const ApplyOptions& options) {
  return impl_->wait<json::object>(
      [&](ObjectDone d) { apply_async(object, options, std::move(d)); });
}

ApiResult<json::object> Client::apply_status(const json::object& object,
                                             const ApplyOptions& options) {
  Spec s = apply_spec(object, options);
  s.subresource = "status";
  return impl_->wait<json::object>([&](ObjectDone d) { impl_->request(s, std::move(d)); });
}

ApiResult<json::object> Client::create(const json::object& object) {
  Spec s = spec_for(object);
  s.method = "POST";
  s.name.clear();
  s.content_type = "application/json";
  s.body = object;
  s.idempotent = false;  // sent twice, it could exist twice (generateName) or fail the second time
  return impl_->wait<json::object>([&](ObjectDone d) { impl_->request(s, std::move(d)); });
}

ApiResult<json::object> Client::bind(const std::string& ns, const std::string& pod,
                                     const std::string& node) {
  Spec s;
  s.api_version = "v1";
  s.kind = "Pod";
  s.ns = ns;
  s.name = pod;
  s.subresource = "binding";
  s.method = "POST";
  s.content_type = "application/json";
  s.body = json::object{{"apiVersion", "v1"},
                        {"kind", "Binding"},
                        {"metadata", {{"name", pod}, {"namespace", ns}}},
                        {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  s.idempotent = false;  // a second binding is a conflict: the caller reads the pod again
  return impl_->wait<json::object>([&](ObjectDone d) { impl_->request(s, std::move(d)); });
}

ApiResult<json::object> Client::update(const json::object& object) {
  Spec s = spec_for(object);
  s.method = "PUT";
  s.content_type = "application/json";
  s.body = object;
  return impl_->wait<json::object>([&](ObjectDone d) { impl_->request(s, std::move(d)); });
}

ApiResult<json::object> Client::update_status(const json::object& object) {
  Spec s = spec_for(object);
  s.method = "PUT";
  s.subresource = "status";
  s.content_type = "application/json";
  s.body = object;
  return impl_->wait<json::object>([&](ObjectDone d) { impl_->request(s, std::move(d)); });
}

ApiResult<json::object> Client::merge_patch(const std::string& api_version, const std::string& kind,
                                            const std::string& ns, const std::string& name,
                                            const json::object& patch, bool status) {
  Spec s;
  s.api_version = api_version;
  s.kind = kind;
  s.ns = ns;
  s.name = name;
  s.method = "PATCH";
  if (status) s.subresource = "status";
  s.content_type = "application/merge-patch+json";
  s.body = patch;
  return impl_->wait<json::object>([&](ObjectDone d) { impl_->request(s, std::move(d)); });
}

void Client::remove_async(std::string api_version, std::string kind, std::string ns,
                          std::string name, DeleteOptions options, ObjectDone done) {
  Spec s;
  s.api_version = std::move(api_version);
  s.kind = std::move(kind);
  s.ns = std::move(ns);
  s.name = std::move(name);
  s.method = "DELETE";
  json::object body{{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  json::object pre;
  if (!options.precondition_uid.empty()) pre["uid"] = options.precondition_uid;
  if (!options.precondition_resource_version.empty())
    pre["resourceVersion"] = options.precondition_resource_version;
  if (!pre.empty()) body["preconditions"] = std::move(pre);
  s.body = std::move(body);
  s.content_type = "application/json";
  impl_->request(std::move(s), std::move(done));
}

ApiResult<json::object> Client::remove(const std::string& api_version, const std::string& kind,
                                       const std::string& ns, const std::string& name,
                                       const DeleteOptions& options) {
  return impl_->wait<json::object>(
      [&](ObjectDone d) { remove_async(api_version, kind, ns, name, options, std::move(d)); });
}

namespace {

class StreamHandle : public Client::WatchHandle {
 public:
  explicit StreamHandle(Transport& t) : transport_(t) {}
  void cancel() override {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    if (id_) transport_.cancel(id_);
  }
  // False when cancelled before the stream could start.
  bool started(Transport::StreamId id) {
    std::lock_guard lock(mu_);
    id_ = id;
    if (cancelled_) transport_.cancel(id);
    return true;
  }
  bool cancelled() {
    std::lock_guard lock(mu_);
    return cancelled_;
  }

 private:
  Transport& transport_;
  std::mutex mu_;
  bool cancelled_ = false;
  Transport::StreamId id_ = 0;
};

}  // namespace

std::shared_ptr<Client::WatchHandle> Client::watch(ResourceQuery query,
                                                   std::string resource_version,
                                                   std::function<void(WatchEvent)> on_event,
                                                   std::function<void(ApiResult<bool>)> on_end) {
  auto handle = std::make_shared<StreamHandle>(*impl_->transport);
  std::string av = query.api_version, kind = query.kind;
  impl_->resource(av, kind,
                  [this, handle, query = std::move(query), rv = std::move(resource_version),
                   on_event = std::move(on_event),
                   on_end = std::move(on_end)](ApiResult<ApiResource> r) mutable {
                    if (!r) return on_end(r.error());
                    if (handle->cancelled()) return on_end(client_error("Cancelled", "cancelled"));
                    HttpRequest req;
                    std::string q;
                    add_query(q, "watch", "1");
                    add_query(q, "resourceVersion", rv);
                    add_query(q, "allowWatchBookmarks", "true");
                    add_query(q, "labelSelector", query.label_selector);
                    add_query(q, "fieldSelector", query.field_selector);
                    // Like client-go, ask for a stream of 5 to 10 minutes, so connections rotate.
                    add_query(q, "timeoutSeconds",
                              std::to_string(300 + impl_->transport->jitter() % 301));
                    req.path = r->path(r->namespaced ? query.ns : "") + q;
                    auto decoder = std::make_shared<WatchDecoder>();
                    auto failed = std::make_shared<std::string>();
                    auto id = impl_->transport->stream(
                        std::move(req),
                        [decoder, failed, on_event](std::string_view data) {
                          if (!decoder->feed(data, on_event)) {
                            *failed = decoder->error();
                            return false;
                          }
                          return true;
                        },
                        [failed, on_end = std::move(on_end)](ApiResult<HttpResponse> end) {
                          if (!failed->empty()) return on_end(client_error("Decode", *failed));
                          if (!end) return on_end(end.error());
                          on_end(true);
                        });
                    handle->started(id);
                  });
  return handle;
}

}  // namespace planter::kube
