// Certificates for the sim's HTTPS listener, made at start with OpenSSL: a self-signed CA and a
// serving certificate it signs for 127.0.0.1, ::1 and localhost (EC P-256); and client
// certificates signed by the same CA.
#pragma once

#include <string>
#include <vector>

#include "model/result.h"

namespace planter::sim {

struct ServingCertificates {
  std::string ca_pem;      // what kubeconfigs carry as certificate-authority-data
  std::string cert_pem;    // serving certificate followed by the CA
  std::string key_pem;     // serving key
  std::string ca_key_pem;  // signs client certificates too, as a kind cluster's CA does
};

Result<ServingCertificates> make_serving_certificates();

// A client certificate the sim accepts, as kube-apiserver's x509 authenticator reads one: the
// user is the subject's CN, the groups its O entries.
struct ClientCertificate {
  std::string cert_pem;
  std::string key_pem;
};
Result<ClientCertificate> make_client_certificate(const ServingCertificates& ca,
                                                  const std::string& user,
                                                  const std::vector<std::string>& groups);

}  // namespace planter::sim
