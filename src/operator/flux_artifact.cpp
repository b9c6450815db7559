#include "operator/flux_artifact.h"

#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <stdlib.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <memory>

#include "seed/kustomize.h"

namespace planter::op {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxEntries = 10'000;

std::string string_at(const json::object* o, std::string_view key) {
  const json::value* v = o ? o->if_contains(key) : nullptr;
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// A folder of its own under the temporary folder, removed with this.
struct PrivateDir {
  fs::path path;
  PrivateDir() {
    std::string pattern = (fs::temp_directory_path() / "planter-artifact-XXXXXX").string();
    if (mkdtemp(pattern.data())) path = pattern;
  }
  ~PrivateDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

bool yaml_file(const fs::path& p) {
  std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

}  // namespace

bool is_flux_source_kind(std::string_view kind) {
  return kind == "GitRepository" || kind == "OCIRepository" || kind == "Bucket";
}

std::vector<std::string> flux_source_versions() {
  std::string g = kFluxSourceGroup;
  return {g + "/v1", g + "/v1beta2"};
}

Result<Artifact> artifact_of(const json::object& source, const std::string& what) {
  const json::value* status = source.if_contains("status");
  const json::object* st = status ? status->if_object() : nullptr;
  const json::value* a = st ? st->if_contains("artifact") : nullptr;
  if (!a || !a->is_object()) {
    std::string ready;
    if (const json::value* cs = st ? st->if_contains("conditions") : nullptr; cs && cs->is_array())
      for (const json::value& c : cs->get_array())
        if (c.is_object() && string_at(&c.get_object(), "type") == "Ready")
          ready = string_at(&c.get_object(), "message");
    return Error{fmt::format("{} has no artifact yet{}: source-controller fetches it first", what,
                             ready.empty() ? "" : " (Ready: " + ready + ")")};
  }
  Artifact out{string_at(&a->get_object(), "url"), string_at(&a->get_object(), "digest"),
               string_at(&a->get_object(), "revision")};
  if (out.url.empty()) return Error{what + "'s status.artifact has no url"};
  if (out.digest.empty())
    return Error{what + "'s status.artifact has no digest: planter reads only a verified artifact"};
  return out;
}

Result<bool> digest_matches(std::string_view bytes, const std::string& digest) {
  size_t colon = digest.find(':');
  std::string algorithm = digest.substr(0, colon);
  const EVP_MD* md = algorithm == "sha256"   ? EVP_sha256()
                     : algorithm == "sha384" ? EVP_sha384()
                     : algorithm == "sha512" ? EVP_sha512()
                                             : nullptr;
  if (colon == std::string::npos || !md)
    return Error{fmt::format("digest {} is not sha256:, sha384: or sha512:<hex>", digest)};
  unsigned char hash[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!EVP_Digest(bytes.data(), bytes.size(), hash, &n, md, nullptr))
    return Error{"cannot compute " + algorithm};
  std::string hex;
  for (unsigned int i = 0; i < n; ++i) hex += fmt::format("{:02x}", hash[i]);
  return hex == digest.substr(colon + 1);
}

Result<std::vector<ArtifactFile>> read_artifact(std::string_view tarball, const std::string& path,
                                                size_t max_bytes) {
  fs::path under = fs::path(path.empty() ? "." : path).lexically_normal();
  if (under.is_absolute() || (!under.empty() && *under.begin() == ".."))
    return Error{fmt::format("path {} leaves the artifact: give a path inside it", path)};
  PrivateDir dir;
  if (dir.path.empty()) return Error{"cannot make a temporary folder to unpack the artifact in"};
  std::unique_ptr<archive, int (*)(archive*)> in(archive_read_new(), archive_read_free);
  archive_read_support_filter_gzip(in.get());
  archive_read_support_format_tar(in.get());
  if (archive_read_open_memory(in.get(), tarball.data(), tarball.size()) != ARCHIVE_OK)
    return Error{fmt::format("the artifact is not a .tar.gz: {}", archive_error_string(in.get()))};
  size_t entries = 0, unpacked = 0;
  archive_entry* entry = nullptr;
  for (int r; (r = archive_read_next_header(in.get(), &entry)) != ARCHIVE_EOF;) {
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
      return Error{fmt::format("the artifact is not a readable .tar.gz: {}",
                               archive_error_string(in.get()))};
    if (++entries > kMaxEntries)
      return Error{fmt::format("the artifact has more than {} entries", kMaxEntries)};
    fs::path name = fs::path(archive_entry_pathname(entry)).lexically_normal();
    if (name.is_absolute() || (!name.empty() && *name.begin() == ".."))
      return Error{fmt::format("the artifact's entry {} leaves it", name.string())};
    // Regular files only: a link could point anywhere, devices and FIFOs are no seed.
    if (archive_entry_filetype(entry) != AE_IFREG) continue;
    fs::path to = dir.path / name;
    std::error_code ec;
    fs::create_directories(to.parent_path(), ec);
    std::ofstream out(to, std::ios::binary);
    if (!out) return Error{fmt::format("cannot unpack {}", name.string())};
    char buffer[64 * 1024];
    for (la_ssize_t n; (n = archive_read_data(in.get(), buffer, sizeof buffer)) != 0;) {
      if (n < 0)
        return Error{fmt::format("the artifact's entry {} is cut short: {}", name.string(),
                                 archive_error_string(in.get()))};
      unpacked += static_cast<size_t>(n);
      if (unpacked > max_bytes)
        return Error{fmt::format("the artifact unpacks to more than {} bytes", max_bytes)};
      out.write(buffer, n);
    }
  }
  fs::path root = dir.path / under;
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return Error{
        fmt::format("the artifact has no folder {}: set spec.source.path to one it has", path)};
  std::vector<ArtifactFile> files;
  auto relative = [&](const fs::path& p) { return fs::relative(p, dir.path).string(); };
  if (kustomization_in(root)) {
    auto built = kustomize_build(root, false);
    if (!built) return built.error();
    files.push_back({relative(root) + " (kustomize build)", std::move(built.value())});
    return files;
  }
  std::vector<fs::path> found;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it);
       it.increment(ec))
    if (it->is_regular_file() && yaml_file(it->path())) found.push_back(it->path());
  std::sort(found.begin(), found.end());
  for (const fs::path& p : found) {
    std::ifstream in_file(p, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in_file)), std::istreambuf_iterator<char>());
    files.push_back({relative(p), std::move(text)});
  }
  if (files.empty())
    return Error{
        fmt::format("the artifact has no YAML under {}: set spec.source.path to the "
                    "folder of the seed's manifests",
                    path.empty() ? "./" : path)};
  return files;
}

}  // namespace planter::op
