// The text of a YAML flow quoted scalar, decoded as YAML 1.2 says (7.3.1 double-quoted, 7.3.2
// single-quoted, 6.5 line folding). Both YAML readers decode every quoted scalar here from its
// source text: the block reader for what it reads, and read_yaml_libfyaml for what libfyaml reads,
// because libfyaml 0.7.12 misreads some of them (an escaped line break after an escape reads as a
// space and leaves the decoded string's last bytes unwritten; an escaped space that ends a line
// gives NULs; runs of escaped single quotes), and what it passes on would reach a cluster.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace planter {

// `inner` is the scalar's source between its quotes, line breaks and indentation included;
// `quote` is '"' or '\''. Folding: white space (spaces, tabs) around a line break goes; one break
// becomes a space, each further empty line a line feed; in a double-quoted scalar a break escaped
// with '\' goes with the next line's indentation, the white space before the '\' stays. Line
// breaks are YAML 1.1's, as kubectl's go-yaml reads them (and PyYAML): LF, CRLF, CR and NEL fold
// that way; LS and PS are breaks too, but stay in the text (YAML 1.2 has them as plain content).
// nullopt when it is not a quoted scalar's content (an unknown or short escape, a lone quote, a
// code point that is not one): the caller refuses it.
std::optional<std::string> decode_quoted_scalar(std::string_view inner, char quote);

}  // namespace planter
