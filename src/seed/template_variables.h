// Unrendered templates in a seed: `${VAR}` or `$VAR` left in a field, and how that is reported.
// Shared by validate and the metadata and workload rules, which pass over such a field rather than
// report it twice.
#pragma once

#include <string_view>

#include "model/diagnostics.h"
#include "model/object.h"

namespace planter {

// True when `s` holds `${VAR}` or `$VAR`, as left behind by an unrendered template.
bool has_template_variable(std::string_view s);

// Reports that `field` of `o` ("metadata.name", "data") holds `value`, an unrendered template.
void report_template_variable(const Object& o, std::string_view field, std::string_view value,
                              Diagnostics& diags);

}  // namespace planter
