// The text of a YAML block scalar (`|` literal, `>` folded), decoded from its source as YAML says
// (8.1: indentation, folding, chomping), for the streams libfyaml reads: libfyaml 0.7.12 returns
// some folded scalars with their last bytes never written (found by yaml_readers_fuzz), so the
// text of a block scalar is taken from planter's reading of the source, as a quoted scalar's is
// (model/yaml_quoted.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace planter {

// `source` is the whole stream and `content` the offset where the scalar's content begins: the
// line after its header (libfyaml's start mark of the token). `parent` is the indentation of the
// block collection holding it (its keys' or dashes' column; -1 at a document's root). nullopt
// when the source there is not a block scalar's (no header on the line before, an indentation
// indicator of 0, leading empty lines deeper than the text, a NEL, LS or PS YAML 1.1 would break
// lines at): the caller refuses it rather than guess.
std::optional<std::string> decode_block_scalar(std::string_view source, size_t content, int parent);

}  // namespace planter
