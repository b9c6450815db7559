// Server-side printing: the meta.k8s.io/v1 Table a kube-apiserver returns for a get or list when
// the client asks for one (`kubectl get` sends Accept: application/json;as=Table;v=v1;
// g=meta.k8s.io). The sim renders Tables for CRD-defined kinds, as kube-apiserver does from their
// additionalPrinterColumns (Name and Age when a CRD declares none); builtin_tables.h has the
// columns of the built-in kinds people look at.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace planter::sim {

// One column of a Table (columnDefinitions); priority 1 columns show with `-o wide` only.
struct TableColumn {
  std::string name, type, format, description;
  int priority = 0;
};

// The Table of `objects` with these columns; `cells` gives a row's cells in column order.
// `include_object`: the includeObject query parameter (None, Object, or the default
// PartialObjectMetadata); `list_metadata`: resourceVersion and continue of the list.
std::string render_rows(const std::vector<TableColumn>& columns,
                        const std::function<boost::json::array(const boost::json::object&)>& cells,
                        const std::vector<const boost::json::object*>& objects,
                        std::string_view include_object, boost::json::object list_metadata);

// True when `accept` asks for a meta.k8s.io/v1 Table.
bool wants_table(std::string_view accept);

// The Table of `objects`. `columns`: a CRD version's additionalPrinterColumns (may be empty);
// `include_object`: the includeObject query parameter (None, Object, or the default
// PartialObjectMetadata); `list_metadata`: resourceVersion and continue of the list.
std::string render_table(const boost::json::array& columns,
                         const std::vector<const boost::json::object*>& objects,
                         std::string_view include_object, boost::json::object list_metadata,
                         std::chrono::system_clock::time_point now);

// An RFC 3339 time ("2026-11-25T00:38:24Z"), to the second; nullopt when it does not parse.
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& text);

// The age of an RFC 3339 `timestamp` at `now` in kubectl's short form; "<unknown>" when it
// does not parse.
std::string age_of(const std::string& timestamp, std::chrono::system_clock::time_point now);

// kubectl's short durations: "45s", "3m20s", "4h", "12d", "2y3d".
std::string human_duration(std::chrono::seconds d);

// The value at a printer column's JSONPath (.a.b, [N], [*], [?(@.k=="v")]); null when absent.
boost::json::value printer_column_value(const boost::json::object& object, std::string_view path);

}  // namespace planter::sim
