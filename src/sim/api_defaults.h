// Defaults kube-apiserver gives objects on create, where users, schedulers and controllers
// notice them.
//
// Pods: every container with a limit and no request for a resource requests its limit;
// schedulerName default-scheduler; restartPolicy, dnsPolicy, terminationGracePeriodSeconds,
// serviceAccountName, enableServiceLinks, priority; imagePullPolicy and the termination message
// fields of containers; their probes' timeoutSeconds 1, periodSeconds 10, successThreshold 1 and
// failureThreshold 3, and an httpGet's path "/" and scheme HTTP (probes and lifecycle hooks); the
// not-ready and unreachable tolerations the DefaultTolerationSeconds admission plugin adds; status
// Pending with its QoS class.
#pragma once

#include <boost/json/object.hpp>
#include <string_view>

namespace planter::sim {

void default_pod(boost::json::object& pod);

// Jobs (after metadata.uid is set): without spec.selector (and manualSelector), a selector on
// batch.kubernetes.io/controller-uid and the template labels that match it (also job-name and
// the legacy controller-uid and job-name); completions and parallelism 1 when neither is set;
// backoffLimit 6; completionMode NonIndexed; suspend false.
void default_job(boost::json::object& job);

// Deployments, StatefulSets and DaemonSets: replicas 1, revisionHistoryLimit 10 and the update
// strategy kubectl rollout status reads (RollingUpdate: 25%/25% for Deployments, partition 0
// for StatefulSets, maxUnavailable 1 for DaemonSets); progressDeadlineSeconds 600;
// podManagementPolicy OrderedReady.
void default_apps_workload(boost::json::object& workload, std::string_view kind);

}  // namespace planter::sim
