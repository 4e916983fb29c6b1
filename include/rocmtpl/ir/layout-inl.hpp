// SPDX-License-Identifier: MIT
#pragma once

// The implementation of ir/layout.hpp: included at its end (header-only) or compiled once by src/ir.cpp, after it
// (so it does not include it back).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl {

ROCMTPL_INLINE sym_expr to_sym_expr(const literal_dim& d) {
  sym_expr out = d.coefficient();
  for (std::size_t i = 0; i < d.degree(); ++i) out *= sym_expr::symbol(d.factor(i));
  return out;
}

ROCMTPL_INLINE literal_dim to_literal_dim(const sym_expr& e) {
  if (const auto c = e.constant()) return *c;
  const auto& terms = detail::sym_ops::terms(e);
  auto refuse = [&](const std::string& why) {
    throw invalid_argument_error("rocmtpl: literal_dim: " + e.to_string() + " " + why +
                                 "; keep it in a runtime layout");
  };
  if (terms.size() != 1) refuse("is not a monomial (an integer times a product of symbols)");
  literal_dim out = terms.front().coeff;
  for (const auto& f : terms.front().monomial) {
    if (f.atom->kind != detail::sym_atom_kind::symbol) refuse("has a floor_div or mod, not only symbols");
    if (f.atom->name.size() > literal_dim::max_name) {
      refuse("has the symbol '" + f.atom->name + "', longer than " + std::to_string(literal_dim::max_name) +
             " characters");
    }
    if (out.degree() + static_cast<std::size_t>(f.exponent) > literal_dim::max_factors) {
      refuse("has more than " + std::to_string(literal_dim::max_factors) + " symbol factors");
    }
    for (std::int64_t k = 0; k < f.exponent; ++k) out = out * literal_dim::symbol(f.atom->name);
  }
  return out;
}

namespace detail {
ROCMTPL_INLINE void literal_values_of(const layout& l, std::size_t rank, std::span<literal_dim> sizes,
                                      std::span<literal_dim> strides, literal_dim& offset) {
  if (l.rank() != rank) {
    throw invalid_argument_error("rocmtpl: literal_layout: " + l.to_string() + " has rank " + std::to_string(l.rank()) +
                                 ", not " + std::to_string(rank) + "; use literal_layout<" + std::to_string(l.rank()) +
                                 ">");
  }
  auto convert = [&](const sym_expr& e, const std::string& what) {
    try {
      return to_literal_dim(e);
    } catch (const invalid_argument_error& error) {
      throw invalid_argument_error("rocmtpl: literal_layout: " + what + " of " + l.to_string() + ": " + error.what());
    }
  };
  for (std::size_t i = 0; i < rank; ++i) {
    sizes[i] = convert(l.sizes()[i], "size " + std::to_string(i));
    strides[i] = convert(l.strides()[i], "stride " + std::to_string(i));
  }
  offset = convert(l.offset(), "the offset");
}
}  // namespace detail

ROCMTPL_INLINE std::vector<sym_expr> layout::to_exprs(std::span<const literal_dim> values) {
  std::vector<sym_expr> out;
  out.reserve(values.size());
  for (const auto& v : values) out.push_back(to_sym_expr(v));
  return out;
}

ROCMTPL_INLINE layout::layout(dtype type, std::vector<sym_expr> sizes, std::vector<sym_expr> strides, sym_expr offset)
    : type_(type), sizes_(std::move(sizes)), strides_(std::move(strides)), offset_(std::move(offset)) {
  (void)element_size(type_);  // rejects values outside the enumeration
  if (sizes_.size() != strides_.size()) {
    throw invalid_argument_error("rocmtpl: layout: " + std::to_string(sizes_.size()) + " sizes but " +
                                 std::to_string(strides_.size()) + " strides; give one stride per size");
  }
  check_non_negative("size", sizes_);
  check_non_negative("stride", strides_);
  if (auto c = offset_.constant(); c && *c < 0) {
    throw invalid_argument_error("rocmtpl: layout: negative offset " + std::to_string(*c));
  }
  text_ = make_text();  // layouts are immutable; rendering prints them often
}

ROCMTPL_INLINE layout layout::row_major(dtype type, std::vector<sym_expr> sizes, sym_expr offset) {
  std::vector<sym_expr> strides(sizes.size());
  sym_expr running = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    running = running * sizes[i];
  }
  return {type, std::move(sizes), std::move(strides), std::move(offset)};
}

ROCMTPL_INLINE layout layout::col_major(dtype type, std::vector<sym_expr> sizes, sym_expr offset) {
  const auto rank = sizes.size();
  if (rank < 2) {
    throw invalid_argument_error("rocmtpl: layout: col_major needs rank >= 2, got rank " + std::to_string(rank));
  }
  std::vector<sym_expr> strides(rank);
  strides[rank - 2] = 1;
  strides[rank - 1] = sizes[rank - 2];
  sym_expr running = sizes[rank - 2] * sizes[rank - 1];
  for (std::size_t i = rank - 2; i-- > 0;) {
    strides[i] = running;
    running = running * sizes[i];
  }
  return {type, std::move(sizes), std::move(strides), std::move(offset)};
}

ROCMTPL_INLINE sym_expr layout::storage_size() const {
  for (const auto& s : sizes_) {
    if (auto c = s.constant(); c && *c == 0) return 0;
  }
  sym_expr span = 1;
  for (std::size_t i = 0; i < rank(); ++i) span = span + (sizes_[i] - 1) * strides_[i];
  return offset_ + span;
}

ROCMTPL_INLINE bool layout::is_contiguous() const { return strides_ == row_major(type_, sizes_).strides(); }

ROCMTPL_INLINE std::vector<std::string> layout::free_symbols() const {
  std::vector<std::string> out;
  auto add = [&](const sym_expr& e) {
    for (auto& s : e.free_symbols()) out.push_back(std::move(s));
  };
  for (const auto& s : sizes_) add(s);
  for (const auto& s : strides_) add(s);
  add(offset_);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

ROCMTPL_INLINE bool layout::is_static() const {
  auto constant = [](const sym_expr& e) { return e.is_constant(); };
  return std::all_of(sizes_.begin(), sizes_.end(), constant) &&
         std::all_of(strides_.begin(), strides_.end(), constant) && offset_.is_constant();
}

namespace detail {

// One dimension of a layout in overlap_of(): its index, size and stride.
struct overlap_dim {
  std::size_t index;
  sym_expr size;
  sym_expr stride;

  [[nodiscard]] std::string text() const {
    return "dimension " + std::to_string(index) + " (size " + size.to_string() + ", stride " + stride.to_string() + ")";
  }
};

// The rule of overlap_of() on dimensions whose strides are constants: the reason of the first
// collision; nullopt when there is none, with `complete` false when a symbolic size stopped the walk.
inline std::optional<std::string> constant_stride_collision(std::vector<overlap_dim> dims, bool& complete) {
  std::stable_sort(dims.begin(), dims.end(), [](const overlap_dim& a, const overlap_dim& b) {
    return *a.stride.constant() < *b.stride.constant();
  });
  complete = true;
  std::int64_t extent = 1;  // the previous stride times the previous size
  const overlap_dim* prev = nullptr;
  for (const auto& d : dims) {
    const std::int64_t stride = *d.stride.constant();
    if (stride < extent) {
      if (prev == nullptr) {
        return "stride " + std::to_string(stride) + " in dimension " + std::to_string(d.index) + " (size " +
               d.size.to_string() + ") puts its elements in one place";
      }
      return d.text() + " overlaps " + prev->text() + ": " + std::to_string(stride) + " < " + prev->stride.to_string() +
             " * " + prev->size.to_string() + ", so two indices address one element";
    }
    if (&d == &dims.back()) break;
    const auto size = d.size.constant();
    if (!size) {
      complete = false;  // the next stride is compared with a product of a symbol
      return std::nullopt;
    }
    extent = stride > std::numeric_limits<std::int64_t>::max() / *size ? std::numeric_limits<std::int64_t>::max()
                                                                       : stride * *size;
    prev = &d;
  }
  return std::nullopt;
}

// True when the dimensions chain from a constant stride of at least 1, each next stride being the
// previous stride times the previous size plus a constant >= 0 (see overlap_of()).
inline bool strides_chain(std::vector<overlap_dim> dims) {
  const overlap_dim* start = nullptr;
  for (const auto& d : dims) {
    const auto c = d.stride.constant();
    if (c && *c >= 1 && (start == nullptr || *c < *start->stride.constant())) start = &d;
  }
  if (start == nullptr) return false;
  sym_expr extent = start->stride * start->size;
  dims.erase(dims.begin() + (start - dims.data()));
  while (!dims.empty()) {
    auto best = dims.end();
    std::int64_t best_gap = 0;
    for (auto it = dims.begin(); it != dims.end(); ++it) {
      const auto gap = (it->stride - extent).constant();
      if (gap && *gap >= 0 && (best == dims.end() || *gap < best_gap)) best = it, best_gap = *gap;
    }
    if (best == dims.end()) return false;
    extent = best->stride * best->size;
    dims.erase(best);
  }
  return true;
}

}  // namespace detail

ROCMTPL_INLINE layout_overlap overlap_of(const layout& l) {
  std::vector<detail::overlap_dim> dims;
  std::vector<detail::overlap_dim> constant_strides;
  for (std::size_t i = 0; i < l.rank(); ++i) {
    if (const auto size = l.sizes()[i].constant(); size && *size <= 1) continue;  // any stride will do
    dims.push_back({i, l.sizes()[i], l.strides()[i]});
    if (l.strides()[i].is_constant()) constant_strides.push_back(dims.back());
  }
  bool complete = false;
  if (auto why = detail::constant_stride_collision(constant_strides, complete)) {
    return {overlap_kind::overlapping, std::move(*why)};
  }
  if (complete && constant_strides.size() == dims.size()) return {overlap_kind::disjoint, {}};
  if (detail::strides_chain(dims)) return {overlap_kind::disjoint, {}};
  return {overlap_kind::depends, {}};
}

ROCMTPL_INLINE bool operator==(const layout& a, const layout& b) {
  return a.type_ == b.type_ && a.sizes_ == b.sizes_ && a.strides_ == b.strides_ && a.offset_ == b.offset_;
}

ROCMTPL_INLINE std::string layout::make_text() const {
  auto list = [](const std::vector<sym_expr>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].to_string();
    return s;
  };
  return std::string(name(type_)) + "[" + list(sizes_) + "] strides [" + list(strides_) + "] offset " +
         offset_.to_string();
}

ROCMTPL_INLINE void layout::check_non_negative(const char* what, const std::vector<sym_expr>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (auto c = values[i].constant(); c && *c < 0) {
      throw invalid_argument_error("rocmtpl: layout: negative " + std::string(what) + " " + std::to_string(*c) +
                                   " at dimension " + std::to_string(i));
    }
  }
}

ROCMTPL_INLINE std::size_t layout::normalize(std::int64_t index, const char* what) const {
  const auto n = static_cast<std::int64_t>(rank());
  const auto i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) {
    throw out_of_range_error("rocmtpl: layout: " + std::string(what) + " index " + std::to_string(index) +
                             " out of range for rank " + std::to_string(n));
  }
  return static_cast<std::size_t>(i);
}

}  // namespace rocmtpl
