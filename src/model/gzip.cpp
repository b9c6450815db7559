#include "model/gzip.h"

#include <fmt/format.h>
#include <zlib.h>

#include <memory>

namespace planter {

namespace {

struct Inflater {
  z_stream z{};
  bool ok = false;
  Inflater() { ok = inflateInit2(&z, 16 + MAX_WBITS) == Z_OK; }  // 16: a gzip header
  ~Inflater() {
    if (ok) inflateEnd(&z);
  }
};

}  // namespace

Result<std::string> gunzip(std::string_view data, size_t max_bytes) {
  Inflater in;
  if (!in.ok) return Error{"cannot start zlib"};
  std::string out;
  char buffer[64 * 1024];
  in.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  in.z.avail_in = static_cast<uInt>(data.size());
  if (data.size() != in.z.avail_in) return Error{"more than 4 GiB of gzip"};
  for (;;) {
    in.z.next_out = reinterpret_cast<Bytef*>(buffer);
    in.z.avail_out = sizeof buffer;
    int r = inflate(&in.z, Z_NO_FLUSH);
    size_t made = sizeof buffer - in.z.avail_out;
    if (out.size() + made > max_bytes)
      return Error{fmt::format("it unpacks to more than {} bytes", max_bytes)};
    out.append(buffer, made);
    if (r == Z_STREAM_END) {
      if (in.z.avail_in == 0) return out;
      if (inflateReset(&in.z) != Z_OK) return Error{"cannot read its next gzip member"};
      continue;  // another member follows
    }
    if (r == Z_BUF_ERROR && in.z.avail_in == 0) return Error{"it is cut short"};
    if (r != Z_OK)
      return Error{fmt::format("it is not gzip ({})", in.z.msg ? in.z.msg : "invalid data")};
  }
}

std::string gzip(std::string_view data) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace planter
