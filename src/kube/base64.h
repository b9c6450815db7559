// Base64 as kubeconfigs and ExecCredentials write it (standard alphabet, padded), through
// OpenSSL's EVP encoder.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace planter::kube {

std::string base64_encode(std::string_view bytes);
// nullopt when `text` is not base64 (whitespace and line breaks are ignored).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace planter::kube
