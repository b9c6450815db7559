// Certificates for the sim's HTTPS listener, made at start with OpenSSL: a self-signed CA and a
// serving certificate it signs for 127.0.0.1, ::1 and localhost (EC P-256).
#pragma once

#include <string>

#include "model/result.h"

namespace planter::sim {

struct ServingCertificates {
  std::string ca_pem;    // what kubeconfigs carry as certificate-authority-data
  std::string cert_pem;  // serving certificate followed by the CA
  std::string key_pem;   // serving key
};

Result<ServingCertificates> make_serving_certificates();

std::string base64(std::string_view bytes);
// Standard base64 with padding; an error for anything else.
Result<std::string> base64_decode(std::string_view text);

}  // namespace planter::sim
