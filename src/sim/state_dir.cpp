#include "sim/state_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <boost/json/serialize.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "model/files.h"
#include "sim/json_access.h"

namespace planter::sim {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

uint64_t rv_at(const json::object& o) {
  return static_cast<uint64_t>(std::max<int64_t>(0, int_at(&o, "resourceVersion")));
}

}  // namespace

Result<std::unique_ptr<StateDir>> StateDir::open(const fs::path& dir) {
  if (auto err = make_private_dir(dir.string()))
    return Error{"cannot use the state folder: " + err->message};
  return std::unique_ptr<StateDir>(new StateDir(dir));
}

Result<std::optional<SimIdentity>> load_identity(const fs::path& dir) {
  fs::path path = dir / "identity.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::optional<SimIdentity>{};
  auto text = read_file(path.string());
  if (!text) return text.error();
  json::error_code jec;
  json::value v = json::parse(text.value(), jec);
  const json::object* o = jec ? nullptr : v.if_object();
  auto field = [&](std::string_view k) {
    const json::value* f = o ? o->if_contains(k) : nullptr;
    return f && f->is_string() ? std::string(f->get_string()) : std::string{};
  };
  SimIdentity id{field("token"),
                 {field("caPem"), field("certPem"), field("keyPem"), field("caKeyPem")}};
  if (id.token.empty() || id.certs.ca_pem.empty() != id.certs.key_pem.empty())
    return Error{path.string() + ": not a sim identity (delete it to make a new one)"};
  return std::optional<SimIdentity>(std::move(id));
}

std::optional<Error> save_identity(const fs::path& dir, const SimIdentity& id) {
  if (auto err = make_private_dir(dir.string())) return err;
  json::object o{{"token", id.token},
                 {"caPem", id.certs.ca_pem},
                 {"certPem", id.certs.cert_pem},
                 {"keyPem", id.certs.key_pem},
                 {"caKeyPem", id.certs.ca_key_pem}};
  return write_private_file((dir / "identity.json").string(), json::serialize(o));
}

StateDir::~StateDir() {
  for (auto& [_, f] : journals_) std::fclose(f);
}

fs::path StateDir::snapshot_path(const std::string& cluster) const {
  return dir_ / (cluster + ".snapshot.json");
}

fs::path StateDir::journal_path(const std::string& cluster) const {
  return dir_ / (cluster + ".journal.jsonl");
}

Result<std::optional<Snapshot>> StateDir::load(const std::string& cluster) const {
  fs::path snap = snapshot_path(cluster);
  if (!fs::exists(snap)) return std::optional<Snapshot>();
  std::ifstream in(snap, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code ec;
  json::value doc = json::parse(text.str(), ec, {}, kParseLimits);
  if (ec || !doc.is_object() || !doc.as_object().if_contains("objects") ||
      !doc.as_object().at("objects").is_array())
    return Error{snap.string() + ": not a snapshot the sim wrote (" +
                 (ec ? ec.message() : std::string("no objects")) +
                 "); remove the state folder to start afresh"};
  // (storage key, "ns/name") -> object; the latest state wins.
  std::map<std::pair<std::string, std::string>, json::object> objects;
  // A snapshot entry or a journal "put" line: {"key": storage key, "object": {...}}.
  auto keep = [&objects](json::object& entry) {
    auto* obj = entry.if_contains("object");
    if (!obj || !obj->is_object()) return;
    auto& o = obj->as_object();
    objects[{string_at(entry, "key"), Store::bucket_key(meta_string(o, "namespace"),
                                                        meta_string(o, "name"))}] = std::move(o);
  };
  uint64_t rv = rv_at(doc.as_object());
  for (auto& entry : doc.as_object()["objects"].as_array())
    if (entry.is_object()) keep(entry.as_object());
  std::ifstream journal(journal_path(cluster), std::ios::binary);
  std::string line;
  int line_no = 0;
  std::string bad;
  while (std::getline(journal, line)) {
    ++line_no;
    if (line.empty()) continue;
    if (!bad.empty())  // a bad line followed by more: not a cut-short tail
      return Error{bad + "; remove the state folder to start afresh"};
    json::value v = json::parse(line, ec, {}, kParseLimits);
    if (ec || !v.is_object()) {
      bad = journal_path(cluster).string() + ":" + std::to_string(line_no) + ": unreadable";
      continue;
    }
    auto& e = v.as_object();
    uint64_t line_rv = rv_at(e);
    if (line_rv <= rv) continue;  // already in the snapshot
    rv = line_rv;
    if (string_at(e, "op") == "delete")
      objects.erase({string_at(e, "key"),
                     Store::bucket_key(string_at(e, "namespace"), string_at(e, "name"))});
    else
      keep(e);
  }
  Snapshot out;
  out.resource_version = rv;
  out.objects.reserve(objects.size());
  for (auto& [k, obj] : objects) out.objects.emplace_back(k.first, std::move(obj));
  return std::optional<Snapshot>(std::move(out));
}

std::optional<Error> StateDir::attach(const std::string& cluster, Store& store) {
  fs::path snap = snapshot_path(cluster);
  std::string text =
      "{\"resourceVersion\":" + std::to_string(store.resource_version()) + ",\"objects\":[";
  bool first = true;
  store.for_each([&](const std::string& key, const StoredObject& obj) {
    text += (first ? "\n{\"key\":" : ",\n{\"key\":") + json::serialize(json::value(key)) +
            ",\"object\":" + json::serialize(*obj) + "}";
    first = false;
  });
  text += "]}\n";
  if (auto err = write_private_file(snap.string(), text)) return err;
  if (auto it = journals_.find(cluster); it != journals_.end()) {
    std::fclose(it->second);
    journals_.erase(it);
  }
  // Created 0600 before anything is written to it; O_NOFOLLOW: never through a planted symlink.
  int fd = ::open(journal_path(cluster).c_str(),
                  O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  std::FILE* f = fd < 0 ? nullptr : ::fdopen(fd, "w");
  if (fd >= 0 && !f) ::close(fd);
  if (!f)
    return Error{"cannot write " + journal_path(cluster).string() + ": " + std::strerror(errno)};
  journals_[cluster] = f;
  store.set_journal([f](const Change& ch) {
    std::string line = "{\"resourceVersion\":" + std::to_string(ch.resource_version) +
                       ",\"key\":" + json::serialize(json::value(ch.storage_key));
    if (ch.type == EventType::kDeleted) {
      line += ",\"op\":\"delete\",\"namespace\":" + json::serialize(json::value(ch.ns)) +
              ",\"name\":" + json::serialize(json::value(meta_string(*ch.object, "name")));
    } else {
      line += ",\"op\":\"put\",\"object\":" + json::serialize(*ch.object);
    }
    line += "}\n";
    std::fwrite(line.data(), 1, line.size(), f);
    std::fflush(f);
  });
  return std::nullopt;
}

void StateDir::remove(const std::string& cluster, Store& store) {
  store.set_journal(nullptr);
  if (auto it = journals_.find(cluster); it != journals_.end()) {
    std::fclose(it->second);
    journals_.erase(it);
  }
  std::error_code ec;
  fs::remove(snapshot_path(cluster), ec);
  fs::remove(journal_path(cluster), ec);
}

}  // namespace planter::sim
