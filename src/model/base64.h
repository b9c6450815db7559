// Base64 as Kubernetes writes it (Secret data, kubeconfig *-data fields, ExecCredentials,
// continue tokens): the standard alphabet, padded; through OpenSSL's EVP encoder.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace planter {

std::string base64_encode(std::string_view bytes);
// nullopt when `text` is not base64 (whitespace and line breaks are ignored).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace planter
