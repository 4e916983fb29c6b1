#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest cli.gemm_read_only_cache (issue 22 item 11): a complete kernel cache that cannot be written is
# used as it is. rocmtpl-tune fills a cache (one candidate, the real hipcc), the cache is made
# read-only, then the same problem is tuned again (served from the cache: exit 0, no compiler run) and a
# new one (a miss: it fails saying that the cache is read-only, not with an errno). Read-only means a
# read-only bind mount in a mount namespace of the test's own (unshare -m as root, unshare -rm
# otherwise), else (not root) chmod -R a-w.
#   test/cli/read_only_cache.sh <rocmtpl-tune>
# Exit 0 when all match, 1 otherwise, 77 (skipped) without hipcc or any way to make the cache read-only.
set -uo pipefail
tune=$1
work=$(mktemp -d /tmp/rocmtpl-ro-cache-XXXXXX)
cache=$work/cache
cleanup() {
  chmod -R u+w "$work" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

gemm() {  # gemm <m>: one candidate of a tiny problem, the tuning database outside the cache
  echo gemm --m "$1" --n 24 --k 16 --dtype f16 --arch gfx90a --top-k 1 --jobs 1 --db "$work/tuning.sqlite3"
}
out=$(ROCMTPL_CACHE_DIR=$cache "$tune" $(gemm 40) 2>&1)
status=$?
if grep -q "hipcc not found" <<< "$out"; then echo "SKIP: no hipcc: $out"; exit 77; fi
if [ "$status" -ne 0 ] || ! grep -q "(1 compiler runs)" <<< "$out"; then echo "FAIL: filling the cache:"; echo "$out"; exit 1; fi

# Runs a command with the cache read-only; sets `how`.
read_only_mount='mount --make-rprivate / && mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" "$0" && shift && exec "$@"'
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
  how="a read-only bind mount (unshare -m)"
  run_ro() { unshare -m sh -c "$read_only_mount" "$cache" _ "$@"; }
elif [ "$(id -u)" -ne 0 ] && unshare -rm true 2>/dev/null; then
  how="a read-only bind mount (unshare -rm)"
  run_ro() { unshare -rm sh -c "$read_only_mount" "$cache" _ "$@"; }
elif [ "$(id -u)" -ne 0 ]; then
  how="chmod -R a-w"
  chmod -R a-w "$cache"
  run_ro() { "$@"; }
else
  echo "SKIP: running as root (file modes do not stop root) and no mount namespace can be made here"; exit 77
fi

failures=0
out=$(run_ro env ROCMTPL_CACHE_DIR="$cache" "$tune" $(gemm 40) 2>&1)
status=$?
if [ "$status" -ne 0 ] || ! grep -q "compiled 1 of 1 candidates .* (0 compiler runs)" <<< "$out"; then
  echo "FAIL hit on $how: exit status $status:"; echo "$out"; failures=$((failures + 1))
else
  echo "ok   hit on $how: served from the cache, no compiler run"
fi
out=$(run_ro env ROCMTPL_CACHE_DIR="$cache" "$tune" $(gemm 48) 2>&1)
status=$?
if [ "$status" -ne 1 ] ||
   ! grep -Eq "the kernel cache $cache/kernels is read-only \((on a read-only file system|[^)]* is not writable by this user)\): kernel [0-9a-f]+ is not in it and cannot be compiled into it" <<< "$out" ||
   grep -q "cannot open lock file" <<< "$out"; then
  echo "FAIL miss on $how: exit status $status:"; echo "$out"; failures=$((failures + 1))
else
  echo "ok   miss on $how: $(grep -o "the kernel cache .* is read-only ([^)]*)" <<< "$out" | head -1)"
fi
[ "$failures" -eq 0 ] && echo "read-only cache: PASS" || echo "read-only cache: $failures FAILED"
exit $((failures > 0))
