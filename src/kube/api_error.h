// Errors of the Kubernetes client as values: the API server's `Status` (code, reason, message,
// causes) when it answered, or what went wrong on the way when it did not (code 0).
//
// Callers tell the cases apart with the predicates, never by parsing messages: an object that is
// not there (`not_found`), a kind the server does not serve yet (`kind_unknown`: a CRD that is not
// established, or a REST mapping miss), `conflict`, `already_exists`, `invalid`, `forbidden`.
// Messages never carry credentials: the client builds them from the Status and the request's
// method and path only.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace planter::kube {

struct StatusCause {
  std::string reason;  // "FieldValueInvalid", ...
  std::string message;
  std::string field;  // "spec.replicas"
};

struct ApiError {
  int code = 0;        // the HTTP status; 0 when no response came back
  std::string reason;  // the Status reason: "NotFound", "Conflict", ...; client-side:
                       // "NoKindMatch", "Transport", "Decode", "Credentials", "TLS"
                       // (the server's certificate does not verify), "BadURL", "BadHeader" (a
                       // header value or path with a control character: never sent), "ReadOnly"
                       // (a write from a read-only client: never sent)
  std::string message;
  std::vector<StatusCause> causes;
  std::string details_kind;  // Status details: the kind/resource and name the error is about
  std::string details_name;
  std::chrono::milliseconds retry_after{0};  // Retry-After (or details.retryAfterSeconds)
  int attempts = 1;                          // how many times the request was sent

  bool not_found() const { return code == 404 && reason == "NotFound" && !resource_missing(); }
  // The server does not serve the kind (yet): a mapping miss, or a 404 for the resource itself.
  bool kind_unknown() const { return reason == "NoKindMatch" || resource_missing(); }
  bool already_exists() const { return code == 409 && reason == "AlreadyExists"; }
  bool conflict() const { return code == 409 && reason != "AlreadyExists"; }
  bool invalid() const { return code == 422 || reason == "Invalid"; }
  bool forbidden() const { return code == 403; }
  bool unauthorized() const { return code == 401; }
  bool gone() const { return code == 410 || reason == "Expired" || reason == "Gone"; }
  bool bad_request() const { return code == 400; }
  // An Invalid that changes what the server lets no update change: apimachinery's "field is
  // immutable" (a Job's template, a Deployment's selector, a PodGroup's spec), or RBAC's "cannot
  // change roleRef". Only a delete and a create can make such a change.
  bool immutable() const;
  // The fields an immutable() refusal names, in the server's order and comma-separated
  // ("spec.selector, spec.template"); "a field" when its causes name none.
  std::string immutable_fields() const;
  bool transport() const { return code == 0 && reason == "Transport"; }
  // Worth trying again later: throttled, unavailable, a server error, or no answer at all.
  bool transient() const { return code == 0 ? reason == "Transport" : code == 429 || code >= 500; }
  // A permanent rejection of the request itself: 400, 403, 422 (and 401 after refreshing).
  bool permanent() const { return code == 400 || code == 401 || code == 403 || code == 422; }
  // The client cannot reach this server as configured, however often it tries: credentials that
  // cannot be had, a certificate that does not verify, a server URL that is not one, a header
  // that would split the request.
  bool unusable_config() const {
    return code == 0 && (reason == "Credentials" || reason == "TLS" || reason == "BadURL" ||
                         reason == "BadHeader" || reason == "ReadOnly");
  }

  // "deployments.apps \"x\" not found (404 NotFound)", with the causes of an Invalid.
  std::string str() const;

 private:
  bool resource_missing() const {
    return code == 404 && reason == "NotFound" && details_name.empty() && details_kind.empty();
  }
};

template <typename T>
using ApiResult = Expected<T, ApiError>;

// Reads a response body that should be a `Status` into an ApiError (falling back to the body's
// first line when it is not one).
ApiError error_from_response(int code, std::string_view body);

// A client-side failure: no response, an undecodable answer, a mapping miss.
ApiError client_error(std::string_view reason, std::string message);

}  // namespace planter::kube
