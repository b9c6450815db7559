// gzip (RFC 1952) through zlib: a seed kept gzipped (a ConfigMap's binaryData, whose 1 MiB a large
// CRD alone can pass) is read back within a bound, so a small bomb cannot take the memory.
#pragma once

#include <string>
#include <string_view>

#include "model/result.h"

namespace planter {

// The bytes gzip'ed `data` holds (several members, as gzip writes them, are read one after the
// other); an error when it is not gzip, is cut short, or would hold more than `max_bytes`.
Result<std::string> gunzip(std::string_view data, size_t max_bytes);

// `data` gzip'ed (for tests and tools).
std::string gzip(std::string_view data);

}  // namespace planter
