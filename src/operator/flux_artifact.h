// A Seed from a Flux source (source.toolkit.fluxcd.io: GitRepository, OCIRepository, Bucket):
// the artifact source-controller announces in the source's status (a .tar.gz behind
// `status.artifact.url`, with its `digest`) is fetched, checked against that digest, unpacked in
// a private folder within the seed's size bound, and read under `path` as Flux's
// kustomize-controller reads it: a kustomization there is built; without one, every YAML file
// below the path, in path order.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "model/result.h"

namespace planter::op {

// The source kinds a Seed may name, and the versions tried in turn for each: v1, then v1beta2
// (Flux 2.5 serves OCIRepository as v1beta2 only).
inline constexpr const char* kFluxSourceGroup = "source.toolkit.fluxcd.io";
bool is_flux_source_kind(std::string_view kind);
std::vector<std::string> flux_source_versions();

struct Artifact {
  std::string url;
  std::string digest;    // "sha256:<hex>"
  std::string revision;  // "main@sha1:<hex>", for messages
};

// status.artifact of a source, or why there is none yet (its Ready condition's message).
Result<Artifact> artifact_of(const boost::json::object& source, const std::string& what);

// True when `bytes` hash to `digest` ("sha256:<hex>", or sha384/sha512 as Flux may write).
Result<bool> digest_matches(std::string_view bytes, const std::string& digest);

// One file (or a kustomization's build) of the artifact: its text and its name in messages.
struct ArtifactFile {
  std::string name;  // the path inside the artifact
  std::string text;
};
// The seed's YAML from a .tar.gz under `path` ("./" or "" for the root). Absolute paths, `..`
// and links are refused; unpacked at most `max_bytes` and 10,000 entries.
Result<std::vector<ArtifactFile>> read_artifact(std::string_view tarball, const std::string& path,
                                                size_t max_bytes);

}  // namespace planter::op
