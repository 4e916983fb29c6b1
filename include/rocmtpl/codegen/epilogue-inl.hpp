// SPDX-License-Identifier: MIT
#pragma once

// The implementation of codegen/epilogue.hpp: included at its end (header-only) or compiled once by src/codegen.cpp,
// after it (so it does not include it back).

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/sym_expr.hpp>

namespace rocmtpl {

ROCMTPL_INLINE epilogue_op epilogue_op::activation(rocmtpl::activation a) {
  epilogue_op o;
  o.kind = epilogue_op_kind::activation;
  o.act = a;
  return o;
}

ROCMTPL_INLINE epilogue_op epilogue_op::scale(float s) {
  epilogue_op o;
  o.kind = epilogue_op_kind::scale;
  o.scalar = s;
  epilogue_chain{{o}}.validate();
  return o;
}

ROCMTPL_INLINE epilogue_op epilogue_op::cast(dtype t) {
  epilogue_op o;
  o.kind = epilogue_op_kind::cast;
  o.type = t;
  return o;
}

ROCMTPL_INLINE bool operator==(const epilogue_op& a, const epilogue_op& b) noexcept {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case epilogue_op_kind::activation: return a.act == b.act;
    case epilogue_op_kind::scale: return a.scalar == b.scalar;
    case epilogue_op_kind::cast: return a.type == b.type;
    default: return a.input == b.input && a.broadcast == b.broadcast;
  }
}

ROCMTPL_INLINE epilogue_op epilogue_op::binary(epilogue_op_kind k, std::size_t input, epilogue_broadcast b) {
  epilogue_op o;
  o.kind = k;
  o.input = input;
  o.broadcast = b;
  return o;
}

namespace detail {

ROCMTPL_INLINE std::string indexed_name(std::string_view prefix, std::size_t i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

}  // namespace detail

namespace detail::epilogue_impl {

ROCMTPL_INLINE std::string float_text(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

ROCMTPL_INLINE std::string float_literal_text(float v) {
  if (!std::isfinite(v)) {
    throw invalid_argument_error("rocmtpl: epilogue: scale(" + float_text(v) +
                                 ") cannot be rendered into generated code; give a finite number");
  }
  return float_text(v);
}

ROCMTPL_INLINE void check_float_dtype(dtype t, const std::string& what) {
  if (t != dtype::f32 && t != dtype::f16 && t != dtype::bf16) {
    throw invalid_argument_error("rocmtpl: epilogue: " + what + " has dtype " + std::string(name(t)) +
                                 "; supported: float32, float16, bfloat16");
  }
}

}  // namespace detail::epilogue_impl

ROCMTPL_INLINE std::string epilogue_chain::to_string() const {
  std::string out;
  for (const auto& o : ops) {
    if (!out.empty()) out += " -> ";
    switch (o.kind) {
      case epilogue_op_kind::activation: out += rocmtpl::to_string(o.act); break;
      case epilogue_op_kind::scale: out += "scale(" + detail::epilogue_impl::float_text(o.scalar) + ")"; break;
      case epilogue_op_kind::cast: out += "cast(" + std::string(name(o.type)) + ")"; break;
      default: {
        const char* k = o.kind == epilogue_op_kind::add ? "add" : (o.kind == epilogue_op_kind::sub ? "sub" : "mul");
        out += std::string(k) + "(" + detail::indexed_name("in", o.input) + " " +
               std::string(rocmtpl::to_string(o.broadcast)) + ")";
      }
    }
  }
  return out.empty() ? "identity" : out;
}

ROCMTPL_INLINE std::size_t epilogue_chain::input_count() const noexcept {
  std::size_t n = 0;
  for (const auto& o : ops) {
    if (o.has_input() && o.input + 1 > n) n = o.input + 1;
  }
  return n;
}

ROCMTPL_INLINE epilogue_chain epilogue_chain::then(const epilogue_chain& next, std::size_t input_offset) const {
  epilogue_chain out = *this;
  for (auto o : next.ops) {
    if (o.has_input()) o.input += input_offset;
    out.ops.push_back(o);
  }
  return out;
}

ROCMTPL_INLINE void epilogue_chain::validate(std::string_view owner) const {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto& o = ops[i];
    if (o.kind != epilogue_op_kind::scale || std::isfinite(o.scalar)) continue;
    throw config_error(std::string(owner), "scale(" + detail::epilogue_impl::float_text(o.scalar) + ")",
                       "the scale of op " + std::to_string(i) +
                           " must be a finite number (it is rendered into the kernel as a literal)");
  }
}

ROCMTPL_INLINE std::vector<epilogue_operand> epilogue_operands(const fused_epilogue& e, const sym_expr& batch,
                                                               const sym_expr& m, const sym_expr& n) {
  using detail::epilogue_impl::check_float_dtype;
  e.chain.validate();
  detail::epilogue_impl::check_float_dtype(e.output.type(), "output " + e.output.name());
  std::vector<epilogue_operand> out(e.inputs.size());
  std::vector<int> seen(e.inputs.size(), -1);
  for (const auto& o : e.chain.ops) {
    if (o.kind == epilogue_op_kind::cast) check_float_dtype(o.type, "cast");
    if (!o.has_input()) continue;
    if (o.input >= e.inputs.size()) {
      throw invalid_argument_error("rocmtpl: epilogue: op reads input " + detail::indexed_name("", o.input) + " but " +
                                   std::to_string(e.inputs.size()) + " inputs were given");
    }
    const int b = static_cast<int>(o.broadcast);
    if (seen[o.input] >= 0 && seen[o.input] != b) {
      throw invalid_argument_error("rocmtpl: epilogue: input " + detail::indexed_name("", o.input) +
                                   " is used with two broadcasts; give it once per broadcast");
    }
    seen[o.input] = b;
  }
  for (std::size_t i = 0; i < e.inputs.size(); ++i) {
    const buffer& t = e.inputs[i];
    check_float_dtype(t.type(), "input " + t.name());
    auto& op = out[i];
    op.node = &t;
    op.offset = t.get_layout().offset();
    const auto& s = t.sizes();
    const auto& st = t.strides();
    const auto r = s.size();
    auto fail = [&](const std::string& want) {
      throw invalid_argument_error("rocmtpl: epilogue: input " + t.name() + " " + t.get_layout().to_string() +
                                   " is not " + want + " of the output [" + m.to_string() + ", " + n.to_string() + "]");
    };
    auto pick = [&](std::size_t d, const sym_expr& want) {
      if (s[d] == want) return st[d];
      if (s[d] == sym_expr(1)) return sym_expr(0);
      return sym_expr(-1);
    };
    const auto bc = seen[i] < 0 ? epilogue_broadcast::full : static_cast<epilogue_broadcast>(seen[i]);
    if (bc == epilogue_broadcast::row_vector || bc == epilogue_broadcast::column_vector) {
      const bool rows = bc == epilogue_broadcast::column_vector;
      const sym_expr& len = rows ? m : n;
      sym_expr stride(-1);
      if (r == 1) stride = pick(0, len);
      if (r == 2 && (rows ? s[1] : s[0]) == sym_expr(1)) stride = pick(rows ? 0 : 1, len);
      if (stride == sym_expr(-1)) fail(rows ? "[M] (a column vector)" : "[N] (a row vector)");
      (rows ? op.stride_r : op.stride_c) = stride;
      continue;
    }
    if (r < 2 || r > 3) fail("[M, N] or [batch, M, N]");
    op.stride_r = pick(r - 2, m);
    op.stride_c = pick(r - 1, n);
    if (r == 3) op.stride_b = pick(0, batch);
    if (op.stride_r == sym_expr(-1) || op.stride_c == sym_expr(-1) || op.stride_b == sym_expr(-1)) {
      fail("[M, N] or [batch, M, N]");
    }
  }
  return out;
}

namespace detail::epilogue_impl {

// A 16-bit or f32 value read as float, and a value rounded to a dtype, through the conversions of
// conversions_text (hardware instructions where the platform has them).
ROCMTPL_INLINE std::string load(dtype t, const std::string& e) {
  std::string out(load_open(t));
  out += e;
  out += ')';
  return out;
}

ROCMTPL_INLINE std::string round_to(dtype t, const std::string& v) {
  const std::string_view open = round_open(t);
  if (open.empty()) return v;
  std::string out(open);
  out += v;
  out += ')';
  return out;
}

// How each operand is used (its one broadcast), or nothing for an operand no op reads.
ROCMTPL_INLINE std::vector<const epilogue_broadcast*> operand_uses(const epilogue_chain& chain, std::size_t count) {
  std::vector<const epilogue_broadcast*> out(count, nullptr);
  for (const auto& o : chain.ops) {
    if (o.has_input() && o.input < count) out[o.input] = &o.broadcast;
  }
  return out;
}

// `ea.e<i>_<field>`, or the stride's value where it is a constant (so that the compiler folds it).
ROCMTPL_INLINE std::string field(std::size_t i, const std::string& name, const sym_expr& e) {
  if (e.is_constant()) return e.to_cpp();
  return detail::indexed_name("ea.e", i) + "_" + name;
}

// `float x<i>[8]` from the raw words `src` of dtype t.
ROCMTPL_INLINE std::string unpack8(std::size_t i, dtype t, const std::string& src) {
  const auto x = detail::indexed_name("x", i);
  std::string s = "    float " + x + "[8];\n#pragma unroll\n";
  if (t == dtype::f32)
    return s + "    for (int e = 0; e < 8; ++e) " + x + "[e] = rocmtpl_dev::bits_as_float(" + src + "[e]);\n";
  const char* f = t == dtype::f16 ? "rocmtpl_epi_f16x2(" : "rocmtpl_epi_bf16x2(";
  return s + "    for (int e = 0; e < 4; ++e) " + f + src + "[e], " + x + "[2 * e], " + x + "[2 * e + 1]);\n";
}

}  // namespace detail::epilogue_impl

ROCMTPL_INLINE std::string epilogue_params(const std::vector<epilogue_operand>& ops, std::string_view prefix,
                                           bool restrict) {
  std::string out;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    out += ", const " + std::string(storage_type(ops[i].node->type())) + (restrict ? "* __restrict__ " : "* ") +
           detail::indexed_name(prefix, i);
  }
  return out;
}

namespace detail::epilogue_impl {

// struct rocmtpl_epilogue_args and its maker.
ROCMTPL_INLINE std::string args_text(const std::vector<epilogue_operand>& ops,
                                     const std::vector<std::string>& symbols) {
  std::string s = "struct rocmtpl_epilogue_args {\n";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto n = detail::indexed_name("e", i);
    s += "    const " + std::string(storage_type(ops[i].node->type())) + "* " + n + ";\n";
    s += "    int64_t " + n + "_offset, " + n + "_stride_b, " + n + "_stride_r, " + n + "_stride_c;\n";
  }
  if (ops.empty()) s += "    int rocmtpl_unused;\n";
  s += "};\n";
  std::string params;
  auto add = [&](const std::string& p) { params += (params.empty() ? "" : ", ") + p; };
  for (std::size_t i = 0; i < ops.size(); ++i) {
    add("const " + std::string(storage_type(ops[i].node->type())) + "* " + detail::indexed_name("E", i));
  }
  for (const auto& sym : symbols) add("int64_t " + sym);
  s += "[[maybe_unused]] __host__ __device__ __forceinline__ rocmtpl_epilogue_args rocmtpl_epilogue_make(" + params +
       ") {\n";
  s += "    rocmtpl_epilogue_args a{};\n";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto n = detail::indexed_name("a.e", i);
    s += "    " + n + " = " + detail::indexed_name("E", i) + ";\n";
    s += "    " + n + "_offset = " + ops[i].offset.to_cpp() + ";\n";
    s += "    " + n + "_stride_b = " + ops[i].stride_b.to_cpp() + ";\n";
    s += "    " + n + "_stride_r = " + ops[i].stride_r.to_cpp() + ";\n";
    s += "    " + n + "_stride_c = " + ops[i].stride_c.to_cpp() + ";\n";
  }
  for (const auto& sym : symbols) s += "    (void)" + sym + ";\n";
  s += "    return a;\n}\n";
  return s;
}

// rocmtpl_epilogue(): the chain on one value; every operand indexed in 64 bits.
ROCMTPL_INLINE std::string scalar_text(const epilogue_chain& chain, const std::vector<epilogue_operand>& ops) {
  std::string s(scalar_head);
  const auto uses = operand_uses(chain, ops.size());
  s += chain_statements(chain, "    ", [&](std::size_t i) {
    const auto n = detail::indexed_name("ea.e", i);
    std::string index = n + "_offset + batch * " + n + "_stride_b";
    if (*uses[i] != epilogue_broadcast::row_vector) index += " + row * " + n + "_stride_r";
    if (*uses[i] != epilogue_broadcast::column_vector) index += " + col * " + n + "_stride_c";
    return load(ops[i].node->type(), n + "[" + index + "]");
  });
  s += scalar_tail;
  return s;
}

// The vector form's three structs: per row (full operands' row starts, column operands' values),
// per 8-column segment of the row vectors, per segment of a row (the full operands' raw words).
ROCMTPL_INLINE std::string vector_structs_text(const std::vector<epilogue_operand>& ops,
                                               const std::vector<const epilogue_broadcast*>& uses) {
  std::string row = "struct rocmtpl_epilogue_row {\n";
  std::string cols = "struct rocmtpl_epilogue_cols {\n";
  std::string seg = "struct rocmtpl_epilogue_seg {\n";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (uses[i] == nullptr) continue;
    const auto n = detail::indexed_name("e", i);
    const auto t = ops[i].node->type();
    switch (*uses[i]) {
      case epilogue_broadcast::full:
        row += "    const " + std::string(storage_type(t)) + "* " + n + ";  // element (batch, row, 0)\n";
        seg += "    uint32_t " + n + "[" + words8(t) + "];\n";
        break;
      case epilogue_broadcast::column_vector: row += "    float " + n + ";\n"; break;
      case epilogue_broadcast::row_vector: cols += "    uint32_t " + n + "[" + words8(t) + "];\n"; break;
    }
  }
  return row + "};\n" + cols + "};\n" + seg + "};\n";
}

// rocmtpl_epilogue_row_at(), rocmtpl_epilogue_cols_at(), rocmtpl_epilogue_seg_at() and
// rocmtpl_epilogue_prefetch().
ROCMTPL_INLINE std::string vector_loads_text(const std::vector<epilogue_operand>& ops,
                                             const std::vector<const epilogue_broadcast*>& uses) {
  std::string row(row_at_head);
  std::string cols(cols_at_head);
  std::string seg(seg_at_head);
  std::string pre(prefetch_head);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (uses[i] == nullptr) continue;
    const auto& o = ops[i];
    const auto n = detail::indexed_name("e", i);
    const auto ea = "ea." + n;
    const auto sc = field(i, "stride_c", o.stride_c);
    const auto base = field(i, "offset", o.offset) + " + batch * " + field(i, "stride_b", o.stride_b) + " + row * " +
                      field(i, "stride_r", o.stride_r);
    const auto at = "static_cast<int64_t>(col) * " + sc;
    switch (*uses[i]) {
      case epilogue_broadcast::full:
        row += "    r." + n + " = " + ea + " + (" + base + ");\n";
        seg += "    rocmtpl_dev::load8(r." + n + " + " + at + ", " + sc + ", s." + n + ");\n";
        pre += "    rocmtpl_epi_prefetch(r." + n + " + " + at + ");\n";
        break;
      case epilogue_broadcast::column_vector:
        row += "    r." + n + " = " + load(o.node->type(), ea + "[" + base + "]") + ";\n";
        break;
      case epilogue_broadcast::row_vector:
        cols += "    rocmtpl_dev::load8(" + ea + " + (" + field(i, "offset", o.offset) + " + " + at + "), " + sc +
                ", c." + n + ");\n";
        break;
    }
  }
  row += row_at_tail;
  row += cols;
  row += cols_at_tail;
  row += seg;
  row += seg_at_tail;
  row += pre;
  row += prefetch_tail;
  return row;
}

// rocmtpl_epilogue8(): the chain on 8 values, each through the scalar form's statements.
ROCMTPL_INLINE std::string vector_apply_text(const epilogue_chain& chain, const std::vector<epilogue_operand>& ops,
                                             const std::vector<const epilogue_broadcast*>& uses,
                                             std::optional<dtype> staged) {
  std::string s(apply8_head);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (uses[i] == nullptr || *uses[i] == epilogue_broadcast::column_vector) continue;
    const bool full = *uses[i] == epilogue_broadcast::full;
    s += unpack8(i, ops[i].node->type(), (full ? "es." : "ec.") + detail::indexed_name("e", i));
  }
  s += apply8_loop;
  // A leading cast to the type the values are staged in is an identity on them.
  epilogue_chain applied = chain;
  if (staged && !applied.ops.empty() && applied.ops.front().kind == epilogue_op_kind::cast &&
      applied.ops.front().type == *staged) {
    applied.ops.erase(applied.ops.begin());
  }
  s += chain_statements(applied, "        ", [&](std::size_t i) {
    return *uses[i] == epilogue_broadcast::column_vector ? detail::indexed_name("er.e", i)
                                                         : detail::indexed_name("x", i) + "[e]";
  });
  s += apply8_tail;
  return s;
}

}  // namespace detail::epilogue_impl

ROCMTPL_INLINE std::string epilogue_device_code(const epilogue_chain& chain, const std::vector<epilogue_operand>& ops,
                                                const std::vector<std::string>& symbols, std::optional<dtype> staged) {
  namespace impl = detail::epilogue_impl;
  const auto uses = impl::operand_uses(chain, ops.size());
  std::string s = "// Fused epilogue: " + chain.to_string() + "\n";
  s += impl::args_text(ops, symbols);
  s += impl::conversions_text;
  s += impl::scalar_text(chain, ops);
  s += impl::vector_form_comment;
  s += impl::vector_structs_text(ops, uses);
  s += impl::vector_loads_text(ops, uses);
  s += impl::vector_apply_text(chain, ops, uses, staged);
  return s;
}

ROCMTPL_INLINE std::string epilogue_make_call(std::size_t operands, std::string_view prefix,
                                              const std::vector<std::string>& symbols) {
  std::string args;
  auto add = [&](const std::string& a) { args += (args.empty() ? "" : ", ") + a; };
  for (std::size_t i = 0; i < operands; ++i) add(detail::indexed_name(prefix, i));
  for (const auto& s : symbols) add(s);
  return "rocmtpl_epilogue_make(" + args + ")";
}

}  // namespace rocmtpl
