#include <functional>

#include "sim/builtin_tables.h"
#include "sim/handler.h"
#include "sim/json_access.h"
#include "sim/table.h"

namespace planter::sim {

std::optional<Response> Handler::watch(std::shared_ptr<WatchSink> sink, uint64_t* id_out) {
  Cluster::Target t;
  if (auto err = parse_target(t)) return *err;
  if (!t.type->allows("watch"))
    return api_status(405, "MethodNotAllowed",
                      "the server does not allow this method on the requested resource");
  if (auto denied = authorize(t, "watch")) return *denied;
  auto labels = LabelSelector::parse(query(req, "labelSelector"));
  if (!labels) return bad_request("unable to parse requirement: " + labels.error().message);
  auto fields = FieldSelector::parse(query(req, "fieldSelector"), t.type->kind, t.type->custom);
  if (!fields) return bad_request(fields.error().message);
  // A watch on one name is a list watch with a name field selector.
  if (!t.name.empty()) {
    auto by_name = FieldSelector::parse(
        "metadata.name=" + t.name +
            (query(req, "fieldSelector").empty() ? "" : "," + query(req, "fieldSelector")),
        t.type->kind, t.type->custom);
    fields = std::move(by_name);
  }
  auto state = std::make_shared<Cluster::WatchState>();
  state->sink = sink;
  state->version = t.type->api_version();
  state->ns = t.ns;
  state->labels = std::move(labels.value());
  state->fields = std::move(fields.value());
  state->bookmarks = truthy(query(req, "allowWatchBookmarks"));
  std::string rv_text = query(req, "resourceVersion");
  auto matches = [state](const json::object& o) {
    if (!state->ns.empty() && meta_string(o, "namespace") != state->ns) return false;
    return state->labels.matches(o) && state->fields.matches(o);
  };
  // kubectl get -w asks for Tables: each event's object is then a one-row Table (the columns
  // repeated; kubectl prints the header once, when they change).
  bool table =
      (t.type->custom || has_builtin_table(t.type->group, t.type->kind)) && wants_table(req.accept);
  std::function<std::string(const json::object&)> as_table;
  if (table) {
    // Copies: a CRD's type may change or go while the watch is open.
    const Environment* env = &c.env_;
    as_table = [custom = t.type->custom, columns = t.type->printer_columns, group = t.type->group,
                kind = t.type->kind, env,
                include = query(req, "includeObject")](const json::object& o) {
      return custom ? render_table(columns, {&o}, include, {}, env->now())
                    : render_builtin_table(group, kind, {&o}, include, {}, env->now());
    };
  }
  auto frame = [state, as_table](std::string_view type, const json::object& o) {
    std::string out = "{\"type\":\"";
    out += type;
    out += "\",\"object\":";
    out += as_table ? as_table(o) : serialize_as(o, state->version);
    out += "}\n";
    return out;
  };
  auto deliver = [state, matches, frame](const Change& ch) {
    if (state->done) return;
    bool now_in = matches(*ch.object);
    bool was_in = ch.previous && matches(*ch.previous);
    if (ch.type == EventType::kDeleted) {
      if (was_in || now_in) state->sink->send(frame("DELETED", *ch.object));
    } else if (ch.type == EventType::kAdded) {
      if (now_in) state->sink->send(frame("ADDED", *ch.object));
    } else if (now_in && was_in) {
      state->sink->send(frame("MODIFIED", *ch.object));
    } else if (now_in) {
      state->sink->send(frame("ADDED", *ch.object));
    } else if (was_in) {
      state->sink->send(frame("DELETED", *ch.object));
    }
  };
  if (rv_text.empty() || rv_text == "0") {
    // Synthetic ADDED events for the current state, then changes.
    for (const auto& [key, obj] : c.store_.bucket(t.type->storage_key()))
      if (matches(*obj)) sink->send(frame("ADDED", *obj));
  } else {
    char* end = nullptr;
    uint64_t rv = std::strtoull(rv_text.c_str(), &end, 10);
    if (!end || *end) return bad_request("invalid resource version \"" + rv_text + "\"");
    std::string key = t.type->storage_key();
    bool ok = c.store_.changes_since(rv, [&](const Change& ch) {
      if (ch.storage_key == key) deliver(ch);
    });
    if (!ok) {
      Response gone = api_status(410, "Expired",
                                 "too old resource version: " + rv_text + " (" +
                                     std::to_string(c.store_.oldest_resource_version()) + ")");
      sink->send("{\"type\":\"ERROR\",\"object\":" + gone.body + "}\n");
      sink->finish();
      return std::nullopt;
    }
  }
  state->store_id = c.store_.add_watch(t.type->storage_key(), deliver);
  uint64_t id = state->store_id;
  c.watches_[id] = state;
  if (id_out) *id_out = id;
  auto alive = c.alive_;
  Cluster* cluster = &c;
  // The stream ends at timeoutSeconds, or sooner when the sim drops watches (--watch-drop).
  std::optional<std::chrono::milliseconds> end_after;
  if (std::string ts = query(req, "timeoutSeconds"); !ts.empty())
    end_after = std::chrono::seconds(std::strtol(ts.c_str(), nullptr, 10));
  if (auto drop = c.options_.faults.watch_drop;
      drop.count() > 0 && (!end_after || drop < *end_after))
    end_after = drop;
  if (end_after) {
    c.env_.after(*end_after, [alive, cluster, id] {
      if (!*alive) return;
      auto it = cluster->watches_.find(id);
      if (it == cluster->watches_.end()) return;
      auto st = it->second;
      cluster->store_.remove_watch(id);
      cluster->watches_.erase(it);
      st->done = true;
      st->sink->finish();
    });
  }
  if (state->bookmarks) schedule_bookmark(id, state);
  return std::nullopt;
}

void Handler::schedule_bookmark(uint64_t id, std::shared_ptr<Cluster::WatchState> state) {
  auto alive = c.alive_;
  Cluster* cluster = &c;
  std::weak_ptr<Cluster::WatchState> weak = state;
  c.env_.after(c.options_.bookmark_interval, [alive, cluster, id, weak] {
    if (!*alive) return;
    auto st = weak.lock();
    if (!st || st->done || !cluster->watches_.contains(id)) return;
    std::string rv = std::to_string(cluster->store_.resource_version());
    st->sink->send("{\"type\":\"BOOKMARK\",\"object\":{\"apiVersion\":\"" + st->version +
                   "\",\"metadata\":{\"resourceVersion\":\"" + rv + "\"}}}\n");
    Request r;
    Handler h{*cluster, r};
    h.schedule_bookmark(id, st);
  });
}

void Cluster::shutdown() {
  auto watches = std::move(watches_);
  watches_.clear();
  for (auto& [id, w] : watches) {
    w->done = true;
    store_.remove_watch(id);
    w->sink->finish();
  }
}

std::optional<Response> Cluster::watch(const Request& req, std::shared_ptr<WatchSink> sink,
                                       uint64_t* id) {
  if (id) *id = 0;
  Handler h{*this, req};
  return h.watch(std::move(sink), id);
}

void Cluster::cancel_watch(uint64_t id) {
  auto it = watches_.find(id);
  if (it == watches_.end()) return;
  it->second->done = true;
  store_.remove_watch(id);
  watches_.erase(it);
}

}  // namespace planter::sim
