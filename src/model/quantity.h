// Kubernetes resource quantities ("100m", "1.5Gi", "2", "1e3") as planter reads them: to compare
// a container's requests with its limits and, in the fit model, to add them up. planter's own
// reader (the sim has another, so that one's mistake is the other's test failure).
#pragma once

#include <boost/json/fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace planter {

// The amount in base units (cores, bytes); nullopt when `text` is not a quantity. Amounts of
// resources are never negative: a sign makes it nullopt.
std::optional<double> parse_quantity(std::string_view text);
// Like parse_quantity, but with Kubernetes' whole grammar (a leading '-' or '+'): for validation,
// which tells "not a quantity" from "a quantity below 0" as kube-apiserver does.
std::optional<double> parse_signed_quantity(std::string_view text);

// A quantity as a manifest holds it, a string or a number (YAML `cpu: 2`), as text; "" for
// anything else (null included).
std::string quantity_text(const boost::json::value* value);

// For people: "1.3" cores, "250m"; "1.5Gi", "512Mi" (binary units, as people size memory).
std::string cpu_text(double cores);
std::string memory_text(double bytes);

}  // namespace planter
