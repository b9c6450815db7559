#include "seed_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <vector>

namespace planter::bench {

std::string generate_seed(size_t objects, unsigned random_seed) {
  std::mt19937 rng(random_seed);
  const size_t clusters = 8;
  const size_t crds = 20;
  const size_t namespaces = std::max<size_t>(1, objects / 50);
  std::vector<std::string> docs;
  docs.reserve(objects + 1);

  docs.push_back("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: fleet\n");
  for (size_t c = 0; c < clusters; ++c)
    docs.push_back(fmt::format(
        "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\nmetadata:\n  name: edge{}\n"
        "  namespace: fleet\n  labels:\n    tier: edge\nspec:\n  nodes:\n  - count: 3\n",
        c));
  for (size_t k = 0; k < crds; ++k)
    docs.push_back(fmt::format(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
        "  name: widget{0}s.bench.example.com\nspec:\n  group: bench.example.com\n"
        "  scope: Namespaced\n  names:\n    kind: Widget{0}\n    plural: widget{0}s\n"
        "  versions:\n  - name: v1\n    served: true\n    storage: true\n"
        "    schema:\n      openAPIV3Schema:\n        type: object\n"
        "        x-kubernetes-preserve-unknown-fields: true\n",
        k));
  for (size_t n = 0; n < namespaces; ++n)
    docs.push_back(
        fmt::format("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app{}\n  annotations:\n"
                    "    planter.nephio.org/cluster: edge{}\n",
                    n, n % clusters));

  std::uniform_int_distribution<size_t> pick_ns(0, namespaces - 1);
  std::uniform_int_distribution<size_t> pick_crd(0, crds - 1);
  for (size_t i = 0; docs.size() < objects; ++i) {
    size_t ns = pick_ns(rng);
    switch (i % 4) {
      case 0:
        docs.push_back(fmt::format(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web{0}\n  namespace: "
            "app{1}\n"
            "  labels:\n    app: web{0}\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n"
            "      app: web{0}\n  template:\n    metadata:\n      labels:\n        app: web{0}\n"
            "    spec:\n      containers:\n      - name: main\n        image: nginx:1.27\n"
            "        ports:\n        - containerPort: 8080\n",
            i, ns));
        break;
      case 1:
        docs.push_back(fmt::format(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: web{0}\n  namespace: app{1}\n"
            "spec:\n  selector:\n    app: web{0}\n  ports:\n  - port: 80\n    targetPort: 8080\n",
            i, ns));
        break;
      case 2:
        docs.push_back(fmt::format(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config{}\n  namespace: app{}\n"
            "data:\n  mode: \"fast\"\n  replicas: \"3\"\n",
            i, ns));
        break;
      default:
        docs.push_back(
            fmt::format("apiVersion: bench.example.com/v1\nkind: Widget{}\nmetadata:\n  name: w{}\n"
                        "  namespace: app{}\nspec:\n  size: {}\n",
                        pick_crd(rng), i, ns, i % 7));
        break;
    }
  }
  std::shuffle(docs.begin(), docs.end(), rng);
  std::string out;
  for (const auto& d : docs) {
    out += "---\n";
    out += d;
  }
  return out;
}

}  // namespace planter::bench
