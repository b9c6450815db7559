// --state-dir: each cluster's objects survive a restart of the sim. Per cluster, a snapshot
// (`<cluster>.snapshot.json`, every object and the resourceVersion counter) and a journal
// (`<cluster>.journal.jsonl`, one line per change since the snapshot, flushed as it happens,
// so a killed sim loses nothing it answered). Loading replays the journal over the snapshot;
// attaching writes a fresh snapshot and starts an empty journal.
//
// The folder also keeps the sim's identity (`identity.json`: its CA, serving certificate and
// bearer token), so clients connected before a restart go on. Secret data is in all of these
// files: the folder is 0700 and every file in it 0600.
#pragma once

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "model/result.h"
#include "sim/cluster.h"
#include "sim/tls.h"

namespace planter::sim {

struct SimIdentity {
  std::string token;
  ServingCertificates certs;
};

// The identity kept in `dir`, or nothing when the folder has none yet.
Result<std::optional<SimIdentity>> load_identity(const std::filesystem::path& dir);
std::optional<Error> save_identity(const std::filesystem::path& dir, const SimIdentity& identity);

class StateDir {
 public:
  // Creates the folder when it does not exist.
  static Result<std::unique_ptr<StateDir>> open(const std::filesystem::path& dir);
  ~StateDir();
  StateDir(const StateDir&) = delete;
  StateDir& operator=(const StateDir&) = delete;

  // The saved state of `cluster`, or nothing when it has none. A journal's last line cut short
  // by a kill is ignored; anything else unreadable is an error naming the file and line.
  Result<std::optional<Snapshot>> load(const std::string& cluster) const;
  // Snapshots `store` and journals its changes from now on.
  std::optional<Error> attach(const std::string& cluster, Store& store);
  // Stops journaling `cluster` and deletes its files (the cluster is gone).
  void remove(const std::string& cluster, Store& store);

 private:
  explicit StateDir(std::filesystem::path dir) : dir_(std::move(dir)) {}
  std::filesystem::path snapshot_path(const std::string& cluster) const;
  std::filesystem::path journal_path(const std::string& cluster) const;

  std::filesystem::path dir_;
  std::map<std::string, std::FILE*> journals_;
};

}  // namespace planter::sim
