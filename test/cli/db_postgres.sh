#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest cli.db_postgres: the `db` commands of rocmtpl-tune on a PostgreSQL database behave as on a
# SQLite file. Starts its own server (tools/pg_local.sh), seeds the same two records as the SQLite
# db tests (rocmtpl_cli_seed_db, given the URL), then list, show, export and clear.
#   test/cli/db_postgres.sh <rocmtpl-tune> <rocmtpl_cli_seed_db>
# Exit 0 when all match, 1 otherwise, 77 (skipped) without server binaries or backend.
set -euo pipefail
tune=$1
seed=$2
cd "$(dirname "$0")/../.."
source tools/pg_local.sh
trap pg_local_stop EXIT
rc=0
pg_local_start || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
pg_local_sql postgres "CREATE DATABASE cli"
url=$(pg_local_url cli)
if ! out=$("$seed" "$url" "$PG_WORK/digest" 2>&1); then
  if grep -q "without the PostgreSQL backend" <<< "$out"; then echo "SKIP: $out"; exit 77; fi
  echo "$out"; exit 1
fi
digest=$(cat "$PG_WORK/digest")

failures=0
expect() {  # expect <name> <regex> <args>...: exit 0 and the regex found in the output (one line)
  local name=$1 regex=$2
  shift 2
  local out
  if ! out=$("$tune" "$@" 2>&1); then echo "FAIL $name: exit code $?: $out"; failures=$((failures + 1)); return; fi
  if grep -Pzq "$regex" <<< "$out"; then echo "ok   $name"; else echo "FAIL $name: no /$regex/ in:"; echo "$out"; failures=$((failures + 1)); fi
}
expect list "(?s)tuning database postgresql:///cli\?host=.*: 2 records.*softmax +sm_90 +NVIDIA H100 80GB HBM3 +1 +1 +0\.0100 .*gemm +gfx90a +AMD Instinct MI210 +3 +2 +0\.1250 " \
  db --db "$url" list
expect show "(?s)template +gemm.*1 +ok +0\.1250 .* AMD Instinct MI210 \(GPU 0\) +block_m=64.*<- winner.*3 +compile_failed .* - +block_m=128.*\(ptxas: out of registers\)" \
  db --db "$url" show "$digest"
expect export "(?s)\"format\": \"rocmtpl.tuning_db\".*\"path\": \"postgresql:///cli.*\"winner\": \"" db --db "$url" export
ROCMTPL_TUNING_DB=$url expect env "(?s)tuning database postgresql:///cli.*: 2 records" db list
expect clear "removed 1 tuning record of template 'gemm' from postgresql:///cli" db --db "$url" clear --template gemm
expect after "(?s): 1 record[^s].*softmax" db --db "$url" list
[ "$failures" -eq 0 ] && echo "db commands on PostgreSQL: PASS" || echo "db commands on PostgreSQL: $failures FAILED"
exit $((failures > 0))
