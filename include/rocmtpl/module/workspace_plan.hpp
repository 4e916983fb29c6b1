// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The workspace liveness planner of modules, a pure function: buffers with lifetimes (the
/// calls that write and last read them) and sizes go in; slots come out, each holding buffers whose
/// lifetimes never overlap, with their offsets once the sizes are known.
///
/// @code{.cpp}
/// using rocmtpl::sym_expr;
/// // h1 is written by call 0 and read by call 1; h2 by 1 and 2; h3 by 2 and 3.
/// auto plan = rocmtpl::plan_workspace({{"h1", 0, 1, sym_expr::symbol("N")},
///                                      {"h2", 1, 2, sym_expr::symbol("N")},
///                                      {"h3", 2, 3, sym_expr::symbol("N")}});
/// plan.slot_of("h3");                        // 0: h1 is dead once call 1 returned
/// auto sizes = plan.evaluate({{"N", 1000}}, 256);
/// sizes.offsets;                             // {0, 1024}
/// sizes.total;                               // 2048
/// @endcode

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/sym_expr.hpp>

namespace rocmtpl {

/// @brief A buffer to place in the workspace: its lifetime in call indices (inclusive) and its size.
struct workspace_buffer {
  std::string name;         ///< unique among the buffers of one plan
  std::size_t first_use{};  ///< index of the call that writes it (0: live from the start)
  std::size_t last_use{};   ///< index of the last call that reads it (>= first_use)
  sym_expr bytes{};         ///< size in bytes: a constant or an expression of size symbols
};

/// @brief One region of the workspace: buffers that are never alive at the same time.
struct workspace_slot {
  std::vector<std::string> buffers;  ///< in the order they were placed
  std::vector<sym_expr> bytes;       ///< the size of each buffer, in the same order
  std::size_t busy_until = 0;        ///< last use of the slot's latest buffer
};

/// @brief Concrete offsets of a plan for known sizes (workspace_plan::evaluate()).
struct workspace_sizes {
  std::vector<std::size_t> offsets;  ///< byte offset of each slot, aligned
  std::vector<std::size_t> bytes;    ///< bytes of each slot: its largest buffer, rounded up to the alignment
  std::size_t total = 0;             ///< bytes of all slots together
};

class workspace_plan;
[[nodiscard]] workspace_plan plan_workspace(const std::vector<workspace_buffer>& buffers);

/// @brief Where each buffer of a workspace lives: slots in workspace order (slot 0 at offset 0, each
/// next slot right after the previous one).
class workspace_plan {
 public:
  /// @brief The slots, in workspace order.
  [[nodiscard]] const std::vector<workspace_slot>& slots() const noexcept { return slots_; }

  /// @brief The slot that holds `name`, or nullopt for a buffer the plan does not have.
  [[nodiscard]] std::optional<std::size_t> find(const std::string& name) const noexcept;

  /// @brief The slot that holds `name`.
  /// @throws invalid_argument_error for a buffer the plan does not have
  [[nodiscard]] std::size_t slot_of(const std::string& name) const;

  /// @brief True when `a` and `b` share a slot (so their lifetimes do not overlap).
  [[nodiscard]] bool share_slot(const std::string& a, const std::string& b) const { return slot_of(a) == slot_of(b); }

  /// @brief Offsets and sizes for known size symbols: a slot's size is its largest buffer rounded up
  /// to `alignment`, and slots follow each other.
  /// @param hints values of the size symbols
  /// @param alignment bytes, a power of two
  /// @throws invalid_argument_error for a bad alignment or a negative size; evaluation_error for a
  /// symbol without a value; out_of_range_error when the total does not fit in size_t
  [[nodiscard]] workspace_sizes evaluate(const size_hints& hints = {}, std::size_t alignment = 256) const;

  /// @throws invalid_argument_error when `alignment` is not a power of two
  static void check_alignment(std::size_t alignment);

 private:
  friend workspace_plan plan_workspace(const std::vector<workspace_buffer>& buffers);

  static std::size_t align_up(std::size_t bytes, std::size_t alignment);

  std::vector<workspace_slot> slots_;
};

/// @brief Places buffers into workspace slots, in the order given (list them in the order they are
/// first written): each goes into the first slot whose latest buffer's last use is before its first
/// use, else into a new slot. So two buffers share a slot only when one is dead (its last reader has
/// run) before the other is written, and a call never writes over a buffer it reads.
/// @param buffers the buffers, with unique names and first_use <= last_use
/// @return the slots
/// @throws invalid_argument_error for a repeated name or a lifetime that ends before it starts
[[nodiscard]] workspace_plan plan_workspace(const std::vector<workspace_buffer>& buffers);

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/module/workspace_plan-inl.hpp>
#endif
