// Jobs: pods from the template (<job>-<5 chars>) up to spec.parallelism at a time until
// spec.completions of them have succeeded (without completions: until one has, and none is
// still running); then Complete and SuccessCriteriaMet, completionTime, and no more pods.
// Failed pods count against backoffLimit; past it the Job is Failed (BackoffLimitExceeded).
// completionMode Indexed: each pod has an index of [0, completions) (<job>-<i>-<5 chars>, the
// batch.kubernetes.io/job-completion-index annotation and label, hostname <job>-<i>); an index
// is done once a pod of it succeeded (status.completedIndexes, "0-2,4"), and the Job once every
// index is. A fixed-shape Indexed Job is gang-scheduled through a PodGroup (job_pod_groups.h).
#include <algorithm>
#include <boost/json/object.hpp>
#include <set>
#include <string>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/job_pod_groups.h"
#include "sim/workloads/pods.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kJobController = "job-controller";

bool finished(const json::object& job) {
  return condition_true(job, "Complete") || condition_true(job, "Failed");
}

constexpr const char* kIndexKey = "batch.kubernetes.io/job-completion-index";

// The completion index of an Indexed Job's pod, -1 when it has none.
int64_t completion_index(const json::object& pod) {
  std::string text = string_at(object_at(object_at(pod, "metadata"), "annotations"), kIndexKey);
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != text.npos)
    return -1;
  return std::stoll(text);
}

// Indexes as status.completedIndexes writes them: ascending, runs as "first-last".
std::string index_ranges(const std::set<int64_t>& done) {
  std::string out;
  for (auto it = done.begin(); it != done.end();) {
    int64_t first = *it, last = *it;
    for (++it; it != done.end() && *it == last + 1; ++it) last = *it;
    out += (out.empty() ? "" : ",") + std::to_string(first);
    if (last != first) out += "-" + std::to_string(last);
  }
  return out;
}

class JobController : public WorkloadController {
 public:
  explicit JobController(ControllerKit& kit)
      : kit_(kit), queue_(kit, [this](const std::string& ns, const std::string& name) {
          reconcile(ns, name);
        }) {
    queue_.follow_owned("/pods", "Job");
    queue_.follow("batch/jobs");
  }

 private:
  void reconcile(const std::string& ns, const std::string& name) {
    StoredObject job = kit_.store().get("batch/jobs", ns, name);
    if (!job || !meta_string(*job, "deletionTimestamp").empty() || finished(*job)) return;
    const json::object* spec = object_at(*job, "spec");
    const json::object* tmpl = object_at(spec, "template");
    if (!tmpl) return;
    auto* suspend = spec->if_contains("suspend");
    bool suspended = suspend && suspend->is_bool() && suspend->as_bool();
    auto* completions_v = spec->if_contains("completions");
    bool counted = completions_v && completions_v->is_int64();
    int64_t completions = counted ? std::max<int64_t>(completions_v->as_int64(), 0) : 0;
    int64_t parallelism = std::clamp<int64_t>(int_at(spec, "parallelism", 1), 0,
                                              kit_.cluster().options().max_pods_per_workload);
    int64_t backoff_limit = int_at(spec, "backoffLimit", 6);

    bool indexed = counted && string_at(spec, "completionMode") == "Indexed";
    int64_t active = 0, succeeded = 0, failed = 0, ready = 0;
    std::set<int64_t> done, running;  // indexes (Indexed)
    for (const auto& pod : pods_owned_by(kit_.store(), meta_string(*job, "uid"))) {
      std::string phase = string_at(object_at(*pod, "status"), "phase");
      int64_t index = completion_index(*pod);
      if (phase == "Succeeded") {
        ++succeeded;
        if (index >= 0 && index < completions) done.insert(index);
      } else if (phase == "Failed") {
        ++failed;
      } else if (!pod_deleting(*pod)) {
        ++active;
        if (index >= 0) running.insert(index);
        if (pod_ready(*pod)) ++ready;
      }
    }
    bool complete = indexed   ? static_cast<int64_t>(done.size()) >= completions
                    : counted ? succeeded >= completions
                              : succeeded > 0 && active == 0;
    bool failing = failed > backoff_limit;
    int64_t want = 0;
    if (!complete && !failing && !suspended)
      want = counted ? std::min(parallelism, completions - succeeded)
                     : (succeeded > 0 ? 0 : parallelism);
    if (indexed) want = std::min(parallelism, completions - static_cast<int64_t>(done.size()));
    // A gang-scheduled Job's Workload and PodGroup come before its first pod.
    std::string group = active < want ? job_pod_group(kit_, *job, kJobController) : "";
    for (int64_t index = 0; active < want; ++index) {
      json::object labels;
      std::string generate = name + "-";
      if (indexed) {
        if (index >= completions) break;
        if (done.contains(index) || running.contains(index)) continue;
        labels[kIndexKey] = std::to_string(index);
        generate += std::to_string(index) + "-";
      }
      json::object pod = pod_from_template(*tmpl, *job, labels, "", generate);
      if (indexed) {
        json::value& annotations = pod["metadata"].as_object()["annotations"];
        if (!annotations.is_object()) annotations = json::object{};
        annotations.as_object()[kIndexKey] = std::to_string(index);
      }
      json::object& spec_of = pod["spec"].as_object();
      if (indexed && !spec_of.contains("hostname"))
        spec_of["hostname"] = name + "-" + std::to_string(index);
      if (!group.empty()) spec_of["schedulingGroup"] = {{"podGroupName", group}};
      create_pod(kit_, *job, std::move(pod), kJobController);
      ++active;
    }

    const json::object* old = object_at(*job, "status");
    json::object st;
    st["startTime"] =
        old && old->contains("startTime") ? old->at("startTime") : json::value(kit_.now());
    if (active) st["active"] = active;
    if (succeeded) st["succeeded"] = succeeded;
    if (failed) st["failed"] = failed;
    if (indexed) st["completedIndexes"] = index_ranges(done);
    st["ready"] = ready;
    st["terminating"] = 0;
    st["uncountedTerminatedPods"] = json::object{};
    if (complete) {
      st["completionTime"] = kit_.now();
      st["conditions"] =
          json::array{kit_.condition(old, "SuccessCriteriaMet", "True", "CompletionsReached",
                                     "Reached expected number of succeeded pods"),
                      kit_.condition(old, "Complete", "True", "CompletionsReached",
                                     "Reached expected number of succeeded pods")};
      kit_.events(kJobController).record(*job, "Normal", "Completed", "Job completed");
    } else if (failing) {
      st["conditions"] =
          json::array{kit_.condition(old, "FailureTarget", "True", "BackoffLimitExceeded",
                                     "Job has reached the specified backoff limit"),
                      kit_.condition(old, "Failed", "True", "BackoffLimitExceeded",
                                     "Job has reached the specified backoff limit")};
      kit_.events(kJobController)
          .record(*job, "Warning", "BackoffLimitExceeded",
                  "Job has reached the specified backoff limit");
    } else if (old && old->contains("conditions")) {
      st["conditions"] = old->at("conditions");
    }
    kit_.put_status("/apis/batch/v1/namespaces/" + ns + "/jobs/" + name, *job, std::move(st),
                    kJobController);
    if (complete) kit_.ready_event(audit_id("batch/v1", "Job", ns, name), "complete");
  }

  ControllerKit& kit_;
  WorkQueue queue_;
};

}  // namespace

std::unique_ptr<WorkloadController> start_job_controller(ControllerKit& kit) {
  return std::make_unique<JobController>(kit);
}

}  // namespace planter::sim
