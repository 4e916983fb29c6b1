// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Modules (this header gathers rocmtpl/module/: graph.hpp, workspace_plan.hpp, emitter.hpp,
/// runner.hpp): a small graph of chosen template nodes emitted as one HIP translation unit with
/// one exported C entry point that runs the nodes in order on a stream (pure layer: the source;
/// runtime/aot/module_loader.hpp compiles, caches, saves and loads it).
///
/// The entry point has the kernels' ABI shape (docs/ARCHITECTURE.md):
/// @code{.unparsed}
/// extern "C" PT_EXPORT int <module>(const T* input..., T* output..., int64_t size..., size_t* workspace_size,
///                                   uint8_t* workspace, hipStream_t stream);
/// @endcode
/// Intermediate buffers live in the workspace (a slot is reused once the buffer in it is dead),
/// followed by a scratch region the kernels' own workspaces are allocated from; the workspace query
/// returns the total. Kernels keep internal linkage: each is a `static` function in its own
/// namespace, so only the module's entry point (with its packed twin `<module>_packed` and its
/// `<module>_signature()`, codegen/rendered_source.hpp) is exported. Under `#ifdef ROCMTPL_STANDALONE_RUNNER`
/// the source also has a `main()` (the reference's test-runner mode) that fills the inputs with
/// seeded random values, runs the module and prints the time per run.
///
/// The kernels share one translation unit: each kernel's file-scope `#include`s move to the top of
/// the module and the rest goes into the kernel's namespace, so a template's source must not
/// `#define` a macro that another template defines differently.
///
/// @code{.cpp}
/// rocmtpl::module_graph g("mlp");
/// g.add_input(x).add_input(w1).add_input(b1).add_input(w2);
/// g.add_node("h", gemm1.generate(cfg, hints).output_node());
/// g.add_node("a", bias_gelu.generate({}, hints).output_node());
/// g.add_node("y", gemm2.generate(cfg, hints).output_node());
/// g.add_output("y");
/// rocmtpl::module_source m = rocmtpl::emit_module(g);   // m.source: one HIP translation unit
/// @endcode

#include <rocmtpl/module/emitter.hpp>
#include <rocmtpl/module/graph.hpp>
#include <rocmtpl/module/runner.hpp>
#include <rocmtpl/module/workspace_plan.hpp>
