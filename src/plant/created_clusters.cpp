#include "plant/created_clusters.h"

#include <fmt/format.h>

#include <memory>

#include "fit/cluster_taints.h"
#include "kube/kubeconfig.h"
#include "kube/retry.h"
#include "model/base64.h"
#include "model/files.h"
#include "model/object.h"
#include "plan/inventory.h"
#include "plant/readiness_check.h"
#include "seed/seed.h"

namespace planter::plant {

namespace json = boost::json;

namespace {

// From how many clusters to reach on one host a step lists their cluster objects (and their
// kubeconfig Secrets) at once instead of reading each: a choice among 1,000 candidates reads them
// in a few requests instead of 2,000 (docs/decisions.md, "A fleet kept between runs").
constexpr size_t kListFrom = 8;

// A cluster to reach: its cluster object and the cluster that object is declared on.
struct Wanted {
  std::string name;
  ObjectRef object;
  std::string host;
};

std::vector<Wanted> wanted_clusters(const Plan& plan,
                                    const std::map<std::string, kube::RestConfig>& reachable,
                                    const std::set<std::string>& also) {
  std::set<std::string_view> used = clusters_in_use(plan);
  std::vector<Wanted> out;
  for (const ClusterInfo& info : plan.clusters) {
    if ((!info.object && !info.existing) || reachable.contains(info.name)) continue;
    if (!info.object && !used.contains(info.name) && !also.contains(info.name)) continue;
    out.push_back({info.name, info.object ? plan.objects[*info.object].ref : *info.existing,
                   host_of(plan, info)});
  }
  return out;
}

class Reacher {
 public:
  Reacher(const std::map<std::string, kube::RestConfig>& reachable,
          const CreatedClustersOptions& options, CreatedClusters& out,
          const std::vector<Wanted>& wanted)
      : reachable_(reachable), options_(options), out_(out) {
    for (const Wanted& w : wanted) ++on_host_[w.host];
  }

  // Reaches `w` when its host is reachable: true when it is done with (reached or not), false
  // when its host is not reachable yet.
  bool reach(const Wanted& w) {
    kube::Client* host = client(w.host, false);
    if (!host) return false;
    auto got =
        read(host, w.host, false, w.object.api_version, w.object.kind, w.object.ns, w.object.name);
    if (!got) {
      if (got.error().not_found() || got.error().kind_unknown()) {
        out_.gone.insert(w.name);
        return why(w, fmt::format("{} does not exist yet", w.object.short_form()));
      }
      return why(
          w, fmt::format("reading {} on {}: {}", w.object.short_form(), w.host, got.error().str()));
    }
    if (auto failed = cluster_failed_for_good(*got))
      return why(w, fmt::format("{} will not be provisioned: {}", w.object.short_form(), *failed));
    for (const fit::ClusterTaint& t : read_cluster_taints(*got))
      if (t.key == fit::kUnreachableTaint)
        return why(w, fmt::format("{} is tainted {}: its API has not answered for a while "
                                  "(the taint's timeAdded says since when)",
                                  w.object.short_form(), fit::taint_text(t)));
    auto where = kubeconfig_location(*got);
    if (!where) return why(w, fmt::format("{}: {}", w.object.short_form(), where.error()));
    std::string origin = where->secret_name.empty() ? where->url : where->secret_origin();
    Result<std::string> bytes = Error{""};
    if (!where->secret_name.empty()) {
      // The Seed's identity reads the credentials it would use (fleet_view.cpp says why).
      kube::Client* reader = client(w.host, w.host == kSelf && options_.write_as);
      auto secret = read(reader, w.host, reader != host, "v1", "Secret", where->secret_namespace,
                         where->secret_name);
      if (!secret)
        return why(w, fmt::format("reading its kubeconfig ({}): {}", origin, secret.error().str()));
      bytes = kubeconfig_in_secret(*secret, *where);
    } else {
      bytes = kubeconfig_at_url(*where);
    }
    if (!bytes) return why(w, bytes.error().message);
    auto rest = kubeconfig_rest_config(*bytes, origin, *where);
    if (!rest) return why(w, rest.error().message);
    out_.reached[w.name] = std::move(rest.value());
    return true;
  }

 private:
  bool why(const Wanted& w, std::string text) {
    out_.not_reached[w.name] = std::move(text);
    return true;
  }

  // One object, from a list of its namespace's when many are read on the host (as the Seed's
  // identity when `as_seed`), else by itself. A list the reader may not make (a grant of single
  // Secrets by name) is not an answer: each is read.
  kube::ApiResult<json::object> read(kube::Client* c, const std::string& host, bool as_seed,
                                     const std::string& api_version, const std::string& kind,
                                     const std::string& ns, const std::string& name) {
    auto one = [&] {
      return kube::retry_transient([&] { return c->get(api_version, kind, ns, name); },
                                   options_.deadline);
    };
    auto many = on_host_.find(host);
    if (many == on_host_.end() || many->second < kListFrom) return one();
    std::string key = fmt::format("{}\n{}\n{}\n{}\n{}", host, as_seed, api_version, kind, ns);
    auto [it, fresh] = listed_.try_emplace(key);
    if (fresh) {
      auto list = kube::retry_transient(
          [&] {
            return c->list({api_version, kind, ns, "", ""});
          },
          options_.deadline);
      if (list) {
        it->second.emplace();
        for (json::object& o : list->items)
          (*it->second)[string_field(o, {"metadata", "name"})] = std::move(o);
      }
    }
    if (!it->second) return one();
    auto found = it->second->find(name);
    if (found == it->second->end()) {
      kube::ApiError e;
      e.code = 404;
      e.reason = "NotFound";
      e.message = fmt::format("{} \"{}\" not found", kind, name);
      e.details_kind = kind;
      e.details_name = name;
      return e;
    }
    return found->second;
  }

  const kube::RestConfig* config_of(const std::string& cluster) const {
    if (auto it = reachable_.find(cluster); it != reachable_.end()) return &it->second;
    if (auto it = out_.reached.find(cluster); it != out_.reached.end()) return &it->second;
    return nullptr;
  }

  kube::Client* client(const std::string& cluster, bool impersonating) {
    auto& c = clients_[{cluster, impersonating}];
    if (c) return c.get();
    const kube::RestConfig* config = config_of(cluster);
    if (!config) return nullptr;
    kube::ClientOptions o = kube::read_only(options_.client);
    if (impersonating) o = options_.write_as->impersonating(std::move(o));
    auto made = kube::Client::create(*config, o);
    if (!made) return nullptr;
    c = std::move(made.value());
    return c.get();
  }

  const std::map<std::string, kube::RestConfig>& reachable_;
  const CreatedClustersOptions& options_;
  CreatedClusters& out_;
  std::map<std::pair<std::string, bool>, std::unique_ptr<kube::Client>> clients_;
  std::map<std::string, size_t> on_host_;  // clusters to reach, by host
  // host \n as_seed \n api_version \n kind \n ns -> the objects listed there by name; none when
  // the list could not be had.
  std::map<std::string, std::optional<std::map<std::string, json::object>>> listed_;
};

}  // namespace

Result<std::string> kubeconfig_in_secret(const json::object& secret,
                                         const KubeconfigLocation& where) {
  std::string data = string_field(secret, {"data", where.secret_key});
  auto decoded = base64_decode(data);
  if (data.empty() || !decoded)
    return Error{fmt::format("{} has no kubeconfig under key \"{}\"", where.secret_origin(),
                             where.secret_key)};
  return std::move(*decoded);
}

Result<std::string> kubeconfig_at_url(const KubeconfigLocation& where) {
  std::string_view url = where.url;
  Result<std::string> got =
      url.starts_with("http://") || url.starts_with("https://")
          ? fetch_url(where.url)
          : read_file(std::string(url.starts_with("file://") ? url.substr(7) : url));
  if (!got) return Error{"cannot read its kubeconfig: " + got.error().message};
  return got;
}

Result<kube::RestConfig> kubeconfig_rest_config(const std::string& bytes, const std::string& origin,
                                                const KubeconfigLocation& where) {
  auto config = kube::Kubeconfig::parse(bytes, origin, "");
  Result<kube::RestConfig> rest =
      config ? config->rest_config(where.context) : Result<kube::RestConfig>(config.error());
  if (!rest)
    return Error{
        fmt::format("its kubeconfig ({}) is not usable: {}", origin, rest.error().message)};
  return rest;
}

std::set<std::string_view> clusters_in_use(const Plan& plan) {
  std::set<std::string_view> used;
  for (const Unit& u : plan.units) used.insert(u.cluster);
  for (const ClusterChoice& choice : plan.choices)
    for (uint32_t c : choice.candidates) used.insert(plan.clusters[c].name);
  return used;
}

std::string host_of(const Plan& plan, const ClusterInfo& info) {
  if (info.object)
    for (const Unit& u : plan.units)
      if (u.object == *info.object) return u.cluster;
  return std::string(kSelf);
}

CreatedClusters reach_created_clusters(const Plan& plan,
                                       const std::map<std::string, kube::RestConfig>& reachable,
                                       const CreatedClustersOptions& options) {
  CreatedClusters out;
  std::vector<Wanted> left = wanted_clusters(plan, reachable, options.also);
  Reacher reacher(reachable, options, out, left);
  // Hosts first: each pass reaches what the clusters reached so far host.
  for (bool progress = true; progress && !left.empty();) {
    progress = false;
    std::vector<Wanted> next;
    for (Wanted& w : left) {
      if (reacher.reach(w))
        progress = true;
      else
        next.push_back(std::move(w));
    }
    left = std::move(next);
  }
  for (const Wanted& w : left) {
    std::string host_why =
        out.not_reached.contains(w.host) ? out.not_reached[w.host] : "not reached";
    out.not_reached[w.name] =
        fmt::format("its cluster object is on cluster {}: {}", w.host, host_why);
    if (out.gone.contains(w.host)) out.gone.insert(w.name);
  }
  return out;
}

}  // namespace planter::plant
