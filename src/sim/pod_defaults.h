// The defaults kube-apiserver gives a Pod on create, those users and schedulers notice: every
// container with a limit and no request for a resource requests its limit;
// schedulerName default-scheduler; restartPolicy, dnsPolicy, terminationGracePeriodSeconds,
// serviceAccountName, enableServiceLinks, priority; imagePullPolicy and the termination message
// fields of containers; the not-ready and unreachable tolerations the DefaultTolerationSeconds
// admission plugin adds; status Pending with its QoS class.
#pragma once

#include <boost/json/object.hpp>

namespace planter::sim {

void default_pod(boost::json::object& pod);

}  // namespace planter::sim
