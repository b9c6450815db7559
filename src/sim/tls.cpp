#include "sim/tls.h"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace planter::sim {

namespace {

template <typename T, void (*F)(T*)>
struct Deleter {
  void operator()(T* p) const { F(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Cert = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

Error openssl_error(std::string_view what) {
  char buf[256] = "unknown error";
  if (unsigned long e = ERR_get_error()) ERR_error_string_n(e, buf, sizeof buf);
  return Error{"cannot make the sim's TLS certificates: " + std::string(what) + ": " + buf};
}

Key new_key() {
  return Key(EVP_EC_gen("P-256"));
}

bool add_ext(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (!ext) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

enum class Profile { kCa, kServer, kClient };

Result<Cert> make_cert(EVP_PKEY* key, const char* cn, X509* issuer, EVP_PKEY* issuer_key,
                       Profile profile, const std::vector<std::string>& orgs = {"planter sim"}) {
  Cert cert(X509_new());
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  for (const std::string& o : orgs)
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(cn),
                             -1, -1, 0);
  X509* signer = issuer ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  bool ok = profile == Profile::kCa
                ? add_ext(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE") &&
                      add_ext(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign") &&
                      add_ext(cert.get(), signer, NID_subject_key_identifier, "hash")
            : profile == Profile::kClient
                ? add_ext(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE") &&
                      add_ext(cert.get(), signer, NID_key_usage,
                              "critical,digitalSignature,keyEncipherment") &&
                      add_ext(cert.get(), signer, NID_ext_key_usage, "clientAuth") &&
                      add_ext(cert.get(), signer, NID_authority_key_identifier, "keyid")
                : add_ext(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE") &&
                      add_ext(cert.get(), signer, NID_key_usage,
                              "critical,digitalSignature,keyEncipherment") &&
                      add_ext(cert.get(), signer, NID_ext_key_usage, "serverAuth") &&
                      add_ext(cert.get(), signer, NID_subject_alt_name,
                              "DNS:localhost,IP:127.0.0.1,IP:0:0:0:0:0:0:0:1") &&
                      add_ext(cert.get(), signer, NID_authority_key_identifier, "keyid");
  if (!ok) return openssl_error("extensions");
  if (!X509_sign(cert.get(), issuer_key ? issuer_key : key, EVP_sha256()))
    return openssl_error("signing");
  return cert;
}

std::string pem(X509* cert) {
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string pem(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

}  // namespace

Result<ServingCertificates> make_serving_certificates() {
  Key ca_key = new_key(), key = new_key();
  if (!ca_key || !key) return openssl_error("key generation");
  auto ca = make_cert(ca_key.get(), "planter-sim-ca", nullptr, nullptr, Profile::kCa);
  if (!ca) return ca.error();
  auto cert = make_cert(key.get(), "planter-sim", ca->get(), ca_key.get(), Profile::kServer);
  if (!cert) return cert.error();
  ServingCertificates out;
  out.ca_pem = pem(ca->get());
  out.cert_pem = pem(cert->get()) + out.ca_pem;
  out.key_pem = pem(key.get());
  out.ca_key_pem = pem(ca_key.get());
  return out;
}

Result<ClientCertificate> make_client_certificate(const ServingCertificates& ca,
                                                  const std::string& user,
                                                  const std::vector<std::string>& groups) {
  Bio cert_bio(BIO_new_mem_buf(ca.ca_pem.data(), static_cast<int>(ca.ca_pem.size())));
  Cert ca_cert(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
  Bio key_bio(BIO_new_mem_buf(ca.ca_key_pem.data(), static_cast<int>(ca.ca_key_pem.size())));
  Key ca_key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (!ca_cert || !ca_key) return openssl_error("reading the CA");
  Key key = new_key();
  if (!key) return openssl_error("key generation");
  auto cert =
      make_cert(key.get(), user.c_str(), ca_cert.get(), ca_key.get(), Profile::kClient, groups);
  if (!cert) return cert.error();
  return ClientCertificate{pem(cert->get()), pem(key.get())};
}

}  // namespace planter::sim
