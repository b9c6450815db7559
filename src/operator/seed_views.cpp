// What the dashboard reads of the controller (Controller::seeds, Controller::seed): copies of
// each run's phase and records, taken under its lock and never held while anything is written.
#include "operator/controller_impl.h"

namespace planter::op {

namespace {

Controller::SeedView view_of(const SeedRun& run) {
  Controller::SeedView v;
  v.key = run.key;
  v.phase = run.phase;
  v.reason = run.reason;
  v.message = run.message;
  v.units = run.records.size();
  v.declared = run.declared;
  v.version = run.records_version;
  return v;
}

}  // namespace

std::vector<Controller::SeedView> Controller::seeds() const {
  std::vector<std::shared_ptr<SeedRun>> runs;
  {
    std::lock_guard lock(impl_->runs_mu);
    for (const auto& [_, run] : impl_->runs) runs.push_back(run);
  }
  std::vector<SeedView> out;
  out.reserve(runs.size());
  for (const auto& run : runs) {
    std::lock_guard lock(run->mu);
    out.push_back(view_of(*run));
  }
  return out;
}

std::optional<Controller::SeedRunView> Controller::seed(const std::string& key,
                                                        std::optional<uint64_t> known) const {
  std::shared_ptr<SeedRun> run;
  {
    std::lock_guard lock(impl_->runs_mu);
    auto it = impl_->runs.find(key);
    if (it == impl_->runs.end()) return std::nullopt;
    run = it->second;
  }
  std::lock_guard lock(run->mu);
  SeedRunView v{
      view_of(*run), run->plan ? run->plan : run->last_plan, {}, run->run_started, run->elapsed};
  if (known != run->records_version) v.records = run->records;
  return v;
}

}  // namespace planter::op
