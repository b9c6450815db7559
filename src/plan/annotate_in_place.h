// `planter annotate` keeping the seed as its author wrote it: comments, order, quoting and layout
// stay, and only each object's metadata.annotations gains (or changes, one line at a time) what
// planter decided. Done on the text of the seed's files, read again: each object must be a
// document of its own in a file, in block style down to its annotations, and still read as the
// object planned (no plugin, kustomization or stack changed it); otherwise the caller writes the
// objects out afresh, as before.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.h"

namespace planter {

// The annotations to set on each object (by index into plan.objects; empty: none).
using AnnotationEdits = std::vector<std::map<std::string, std::string>>;

// The seed's files, one after the other, with `edits` made in place; nullopt when it cannot be
// done (see above).
std::optional<std::string> annotate_in_place(const Plan& plan, const AnnotationEdits& edits);

// One document's text (its lines, without the `---` before it) with `set` made in its
// metadata.annotations; nullopt when its metadata or annotations are not in block style, or an
// annotation to change spans more than one line.
std::optional<std::string> annotate_document(std::string_view document,
                                             const std::map<std::string, std::string>& set);

}  // namespace planter
