#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The arguments `tools/run.sh tune [options]` gives `rocmtpl-tune gemm`: the main job's defaults
# (fp16 4096^3 + bias + relu, 32 candidates), each replaced by the user's own where the user gives
# that option (`--m 256` replaces `--m 4096`; `--no-bias` replaces `--bias`), then the user's options
# as given. Printed NUL-separated, for `mapfile -d ''`.
set -euo pipefail

# Each default: the options that replace it (|-separated), then its arguments.
defaults=("--m|--m 4096" "--n|--n 4096" "--k|--k 4096" "--dtype|--dtype f16" "--bias|--no-bias|--bias"
          "--epilogue|--epilogue relu" "--top-k|--top-k 32")

given() {  # given OPTION ARGS...: whether ARGS has OPTION or OPTION=VALUE
  local option=$1 a
  shift
  for a in "$@"; do
    [ "$a" = "$option" ] || [ "${a%%=*}" = "$option" ] && return 0
  done
  return 1
}

out=()
for d in "${defaults[@]}"; do
  IFS='|' read -r -a parts <<< "$d"
  replaced=0
  for option in "${parts[@]:0:${#parts[@]}-1}"; do
    if given "$option" "$@"; then replaced=1; fi
  done
  if [ "$replaced" -eq 0 ]; then
    read -r -a words <<< "${parts[-1]}"
    out+=("${words[@]}")
  fi
done
printf '%s\0' "${out[@]}" "$@"
