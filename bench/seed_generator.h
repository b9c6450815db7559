// A deterministic generator of large seeds for benchmarks: Cluster objects, namespaces placed on
// them, CRDs and custom resources of them, and ordinary workloads (Deployments, Services,
// ConfigMaps), shuffled with a fixed seed so that input order gives the planner no help.
#pragma once

#include <cstddef>
#include <string>

namespace planter::bench {

// A multi-document YAML stream of about `objects` objects.
std::string generate_seed(size_t objects, unsigned random_seed = 42);

}  // namespace planter::bench
