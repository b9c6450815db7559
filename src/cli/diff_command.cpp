// `planter diff`, as kubectl diff: the live objects under LIVE-*, what planting would make of
// them under MERGED-*, and `diff -u -N -r` between them, on every cluster the seed plants on that
// exists now (the clusters it creates included); then what cannot be diffed yet and what planting
// would prune.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/seed_target.h"
#include "model/process.h"
#include "model/yaml.h"
#include "plant/diff.h"
#include "plant/seed_inventory.h"

namespace planter::cli {

namespace fs = std::filesystem;

namespace {

// kubectl diff's way: the live objects under LIVE-*, what planting would make of them under
// MERGED-*, one file per object (<cluster>/<apiVersion>.<Kind>.<ns>.<name>, YAML), and `diff -u
// -N -r` between them; then what cannot be diffed yet. Exit 0: no differences, 1: some, 2: an
// error (a refusal, no answer, no diff program).
int diff_prepared(const PlantFlags& f, Prepared& p) {
  p.interrupts->doing("diffing the seed");
  plant::DiffOptions o;
  o.seed_name = p.seed_name;
  o.client = client_options(f.client);
  o.deadline = p.run->deadline(std::chrono::seconds(60));
  o.not_reached = p.run->not_reached();
  std::vector<plant::ObjectDiff> diffs = plant::diff_seed(p.plan, p.run->clusters(), o);
  std::error_code ec;
  fs::path base = fs::temp_directory_path() / fmt::format("planter-diff-{}", ::getpid());
  fs::path live = base / "LIVE", merged = base / "MERGED";
  fs::create_directories(live, ec);
  fs::create_directories(merged, ec);
  bool differs = false, failed = false;
  std::string later, replaced;
  for (const plant::ObjectDiff& d : diffs) {
    const Unit& unit = p.plan.units[d.unit];
    const Object& object = p.plan.object_of(unit);
    fs::path file = fs::path(unit.cluster) / plant::diff_file_name(object.ref);
    auto write = [&](const fs::path& root, const boost::json::object& o) {
      fs::create_directories((root / file).parent_path(), ec);
      std::ofstream(root / file) << to_yaml(o);
    };
    switch (d.state) {
      case plant::ObjectDiff::State::kSame:
        break;
      case plant::ObjectDiff::State::kReplaced:
        replaced +=
            fmt::format("  {} on {}: {} cannot change\n", object.display(), unit.cluster, d.note);
        [[fallthrough]];
      case plant::ObjectDiff::State::kChanged:
        if (d.live) write(live, *d.live);
        [[fallthrough]];
      case plant::ObjectDiff::State::kCreated:
        write(merged, *d.merged);
        differs = true;
        break;
      case plant::ObjectDiff::State::kLater:
        later += fmt::format("  {} on {}: {}\n", object.display(), unit.cluster, d.note);
        differs = true;
        break;
      case plant::ObjectDiff::State::kError:
        fmt::print(stderr, "error: {}: {} on {}: {}\n", object.where(), object.display(),
                   unit.cluster, d.note);
        failed = true;
        break;
    }
  }
  ProcessSpec spec;
  spec.path = "diff";
  spec.args = {"-u", "-N", "-r", live.string(), merged.string()};
  auto run = run_process(spec);
  fs::remove_all(base, ec);
  if (!run || run->exit_code > 1 || run->signal != 0) {
    fmt::print(stderr, "error: cannot compare with diff (diffutils): {}\n",
               run ? tail_lines(run->err, 5) : run.error().message);
    return kExitBadInput;
  }
  std::fwrite(run->out.data(), 1, run->out.size(), stdout);
  if (!replaced.empty())
    fmt::print("\nto be deleted and created again (planter.nephio.org/on-immutable: replace):\n{}",
               replaced);
  if (!later.empty()) fmt::print("\nto be created, not diffed now:\n{}", later);
  // What the seed's inventory lists and the seed no longer holds: planting prunes it.
  plant::InventoryOptions io;
  io.seed_name = p.seed_name;
  io.client = kube::read_only(client_options(f.client));
  io.deadline = p.run->deadline(std::chrono::seconds(60));
  plant::Inventories inventories = plant::read_inventories(p.run->clusters(), io);
  for (const std::string& e : inventories.errors) {
    fmt::print(stderr, "error: {}\n", e);
    failed = true;
  }
  std::string pruned;
  for (const Plan& wave : plant::stale_plans(p.plan, inventories))
    for (const Unit& unit : wave.units)
      pruned += fmt::format("  {} on {}\n", wave.object_of(unit).display(), unit.cluster);
  if (!pruned.empty()) {
    fmt::print("\nto be pruned (the seed no longer holds them):\n{}", pruned);
    differs = true;
  }
  std::fflush(stdout);
  if (failed) return kExitBadInput;
  return differs ? kExitFailure : kExitOk;
}

}  // namespace

int run_diff(const PlantFlags& f) {
  return run_prepared(
      f, [&](Prepared& p) { return diff_prepared(f, p); }, "nothing was written");
}

}  // namespace planter::cli
