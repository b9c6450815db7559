// Comparing JSON values without allocating.
//
// Boost.JSON 1.81's object::equal (behind operator==) copies each key/value pair into the
// object's own memory resource; a seed's monotonic pool never gives that back, so comparing
// policies in a loop grew without bound (issue 29). These compare in place.
#pragma once

#include <boost/json/value.hpp>

namespace planter {

// Structural equality, as operator== defines it (objects as unordered maps, numbers by kind and
// value), allocating nothing. Recursion is bounded by the depth the readers accept.
bool json_equal(const boost::json::value& a, const boost::json::value& b) noexcept;

}  // namespace planter
