// Loading a seed: multi-document YAML (or JSON) streams from files, folders, stdin and URLs,
// turned into Objects that remember their file:line.
//
// Loading never stops at the first problem: every structural error of every document goes into
// the Diagnostics, and the objects that could be read are still returned.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "model/diagnostics.h"
#include "model/object.h"
#include "model/result.h"

namespace planter {

struct Seed {
  std::vector<Object> objects;
  // True when the seed came in as a KRM ResourceList; plugins then get a ResourceList too.
  bool resource_list = false;
};

// What loading may reach beyond its sources.
struct LoadOptions {
  // A kustomization's remote resources (URLs, git repositories). Off by default: kustomize then
  // runs without network, as plugins do (docs/limits.md); Flux's kustomize-controller has the
  // same switch (--no-remote-bases).
  bool allow_remote_bases = false;
};

// Reads every source in order: a file, a folder (recursively, `.yaml`, `.yml`, `.json`, sorted by
// path; a folder with a kustomization file is built instead of read), `-` for standard input, or
// an `http://`/`https://` URL.
Seed load_seed(const std::vector<std::string>& sources, Diagnostics& diags,
               const LoadOptions& options = {});

// Parses one stream and appends its objects to `seed`. `name` is what error messages and
// SourceLocations call the stream.
void parse_seed_text(std::string_view text, std::string_view name, Seed& seed, Diagnostics& diags);

// What fetching a seed URL may do: the schemes allowed (libcurl's list; redirects may only go to
// these too) and the largest body.
struct FetchLimits {
  std::string protocols = "http,https";
  size_t max_bytes = 256u << 20;
  // The whole transfer, connecting included; a server that trickles is cut off here.
  std::chrono::milliseconds timeout{60'000};
  // Set from another thread to give up at once (within a second).
  const std::atomic<bool>* cancel = nullptr;
  // Certificate authorities (a PEM bundle) that https servers are verified against, instead of
  // the system's; empty: the system's.
  std::string ca_file;
};

// Fetches a URL; the error names the URL and the HTTP status or transport failure.
Result<std::string> fetch_url(const std::string& url, const FetchLimits& limits = {});

}  // namespace planter
