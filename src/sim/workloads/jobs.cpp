// Jobs: pods from the template (<job>-<5 chars>) up to spec.parallelism at a time until
// spec.completions of them have succeeded (without completions: until one has, and none is
// still running); then Complete and SuccessCriteriaMet, completionTime, and no more pods.
// Failed pods count against backoffLimit; past it the Job is Failed (BackoffLimitExceeded).
#include <algorithm>
#include <boost/json/object.hpp>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/pods.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kJobController = "job-controller";

bool finished(const json::object& job) {
  return condition_true(job, "Complete") || condition_true(job, "Failed");
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

    int64_t active = 0, succeeded = 0, failed = 0, ready = 0;
    for (const auto& pod : pods_owned_by(kit_.store(), meta_string(*job, "uid"))) {
      std::string phase = string_at(object_at(*pod, "status"), "phase");
      if (phase == "Succeeded")
        ++succeeded;
      else if (phase == "Failed")
        ++failed;
      else if (!pod_deleting(*pod)) {
        ++active;
        if (pod_ready(*pod)) ++ready;
      }
    }
    bool complete = counted ? succeeded >= completions : succeeded > 0 && active == 0;
    bool failing = failed > backoff_limit;
    int64_t want = 0;
    if (!complete && !failing && !suspended)
      want = counted ? std::min(parallelism, completions - succeeded)
                     : (succeeded > 0 ? 0 : parallelism);
    for (int64_t i = active; i < want; ++i) {
      create_pod(kit_, *job, pod_from_template(*tmpl, *job, {}, "", name + "-"), kJobController);
      ++active;
    }

    const json::object* old = object_at(*job, "status");
    json::object st;
    st["startTime"] =
        old && old->contains("startTime") ? old->at("startTime") : json::value(kit_.now());
    if (active) st["active"] = active;
    if (succeeded) st["succeeded"] = succeeded;
    if (failed) st["failed"] = failed;
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
