// POST authentication.k8s.io/v1 selfsubjectreviews (`kubectl auth whoami`): the caller's own
// user and groups, as kube-apiserver answers any authenticated user (its bootstrap ClusterRole
// system:basic-user grants it to system:authenticated). Nothing is stored, and the body (empty
// but for its kind; kubectl sends it as protobuf) is not read: the answer is the server's alone.
#include <boost/json.hpp>

#include "sim/handler.h"

namespace planter::sim {

Response Handler::self_subject_review() {
  json::array groups;
  for (const std::string& g : req.groups) groups.emplace_back(g);
  json::object user{{"username", req.user}, {"groups", std::move(groups)}};
  json::object review{{"kind", "SelfSubjectReview"},
                      {"apiVersion", "authentication.k8s.io/v1"},
                      {"metadata", json::object{{"creationTimestamp", nullptr}}},
                      {"status", json::object{{"userInfo", std::move(user)}}}};
  return Response{201, "application/json", json::serialize(review), {}};
}

}  // namespace planter::sim
