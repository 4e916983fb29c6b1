#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 11's figure: several `rocmtpl-tune batch` processes share one batch through PostgreSQL,
# one is killed with SIGKILL while it holds a claim, and every problem is still tuned exactly once.
#
#   tools/pg_batch_figure.sh [--tune PATH] [--problems N] [--tuners N] [--lease SECONDS]
#
# Starts a private PostgreSQL server (initdb into a temporary folder, listening only on a Unix socket
# there; as `nobody` when run as root, since initdb refuses root), loads a batch of N GEMM problems,
# runs the tuners (compile-only without a GPU: one candidate, one arch, to keep it short), kills one
# of them while it holds a claim, waits for the rest, then checks in the database that:
#   - every problem is done and was finished exactly once (one `done` event each);
#   - every problem was claimed once, except the killed tuner's, which was claimed twice: by the
#     killed tuner, then taken over by another after its lease expired (a `reclaimed` event);
#   - the killed tuner finished nothing it held when it died.
# Exit 0 when every check holds, 1 when one fails, 77 when no PostgreSQL server or backend is here
# (the ctest `cli.batch_postgres` skips then).
set -euo pipefail
cd "$(dirname "$0")/.."

tune=build/release/tools/rocmtpl-tune
problems=16
tuners=4
lease=6
victim=2
while [ $# -gt 0 ]; do
  case "$1" in
    --tune) tune=$2; shift 2 ;;
    --problems) problems=$2; shift 2 ;;
    --tuners) tuners=$2; shift 2 ;;
    --lease) lease=$2; shift 2 ;;
    *) echo "usage: $0 [--tune PATH] [--problems N] [--tuners N] [--lease SECONDS]" >&2; exit 2 ;;
  esac
done
[ -x "$tune" ] || { echo "figure: $tune not built (cmake --build --preset release --target rocmtpl-tune)" >&2; exit 2; }

# ---- the server ---------------------------------------------------------------------------------
source tools/pg_local.sh
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null || true; done
  pg_local_stop
}
trap cleanup EXIT
rc=0
pg_local_start || rc=$?
[ "$rc" -eq 77 ] && { echo "figure: SKIP"; exit 77; }
[ "$rc" -eq 0 ] || exit 1
work=$PG_WORK
pg_local_sql postgres "CREATE DATABASE figure"
url=$(pg_local_url figure)
sql() { pg_local_sql figure "$1"; }
echo "figure: PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on $work (Unix socket only)"

if ! out=$("$tune" db --db "$url" list 2>&1); then
  if grep -q "without the PostgreSQL backend" <<< "$out"; then
    echo "figure: SKIP: $tune was built without the PostgreSQL backend (no libpq-dev when configured)"
    exit 77
  fi
  echo "$out"; exit 1
fi

# ---- the batch: N GEMM problems of assorted shapes and types -----------------------------------
file=$work/figure.json
{
  echo "["
  for i in $(seq 0 $((problems - 1))); do
    dtypes=(f32 f16 bf16 f16); layouts=(rr rc cr cc)
    m=$((64 * (1 + i % 5))); n=$((32 * (1 + i % 3))); k=$((16 * (1 + i % 4)))
    sep=$([ "$i" -lt $((problems - 1)) ] && echo "," || true)
    echo "  {\"m\": $m, \"n\": $n, \"k\": $k, \"dtype\": \"${dtypes[i % 4]}\", \"layout\": \"${layouts[(i / 4) % 4]}\"}$sep"
  done
  echo "]"
} > "$file"

# ---- the tuners ---------------------------------------------------------------------------------
export ROCMTPL_CACHE_DIR=$work/cache  # a fresh code cache: every compile really runs
start=$(date +%s.%N)
for i in $(seq 1 "$tuners"); do
  "$tune" batch "$file" --name figure --db "$url" --lease "$lease" --top-k 1 --arch gfx90a --jobs 1 --plain \
    --tuner-id "tuner-$i" > "$work/tuner-$i.log" 2>&1 &
  pids+=($!)
done
victim_pid=${pids[$((victim - 1))]}

# Kill the victim while it holds a claim (after it finished one problem, so it is mid-batch).
held=""
for _ in $(seq 1 600); do
  if [ "$(sql "SELECT count(*) FROM batch_items WHERE finished_by = 'tuner-$victim'")" -ge 1 ]; then
    held=$(sql "SELECT item FROM batch_items WHERE state = 'claimed' AND claimed_by = 'tuner-$victim'")
    [ -n "$held" ] && break
  fi
  sleep 0.05
done
[ -n "$held" ] || { echo "figure: tuner-$victim never held a claim to kill"; exit 1; }
kill -9 "$victim_pid"
killed_at=$(date +%s.%N)
echo "figure: kill -9 tuner-$victim (pid $victim_pid) at $(date -u +%H:%M:%S.%3N) while it held problem $held"
{ wait "$victim_pid"; } 2> /dev/null || true  # reap it quietly (no "Killed" line)

status=0
for i in $(seq 1 "$tuners"); do
  [ "$i" -eq "$victim" ] && continue
  wait "${pids[$((i - 1))]}" || { echo "figure: tuner-$i failed:"; cat "$work/tuner-$i.log"; status=1; }
done
pids=()
end=$(date +%s.%N)

# ---- the checks ---------------------------------------------------------------------------------
check() {  # check <what> <expected> <actual>
  if [ "$2" = "$3" ]; then echo "  ok    $1: $3"; else echo "  FAIL  $1: expected $2, got $3"; status=1; fi
}
echo "figure: $problems problems, $tuners tuners, lease ${lease} s, wall $(printf '%.1f' "$(echo "$end - $start" | bc)") s" \
  "(the others finished $(printf '%.1f' "$(echo "$end - $killed_at" | bc)") s after the kill)"
echo "per tuner (problems finished):"
sql "SELECT finished_by, count(*) FROM batch_items GROUP BY finished_by ORDER BY finished_by" | sed 's/^/  /'
echo "checks:"
check "problems in the batch" "$problems" "$(sql "SELECT count(*) FROM batch_items")"
check "problems done" "$problems" "$(sql "SELECT count(*) FROM batch_items WHERE state = 'done'")"
check "problems finished more than once" 0 \
  "$(sql "SELECT count(*) FROM (SELECT item FROM batch_events WHERE event = 'done' GROUP BY item HAVING count(*) <> 1) x")"
check "finish events" "$problems" "$(sql "SELECT count(*) FROM batch_events WHERE event = 'done'")"
check "problems tuned by two tuners, besides the killed one's" 0 \
  "$(sql "SELECT count(*) FROM batch_items WHERE attempts <> 1 AND item <> '$held'")"
check "claims of the killed tuner's problem" 2 "$(sql "SELECT attempts FROM batch_items WHERE item = '$held'")"
check "killed tuner's problem finished by another tuner" "t" \
  "$(sql "SELECT finished_by IS NOT NULL AND finished_by <> 'tuner-$victim' FROM batch_items WHERE item = '$held'")"
check "taken over after the lease expired (reclaimed events)" 1 \
  "$(sql "SELECT count(*) FROM batch_events WHERE event = 'reclaimed' AND item = '$held'")"
check "finishes refused (lost claims)" 0 "$(sql "SELECT count(*) FROM batch_events WHERE event = 'lost'")"
echo "log of problem $held:"
sql "SELECT at, event, tuner FROM batch_events WHERE item = '$held' ORDER BY id" | sed 's/^/  /'
echo "summary lines of the surviving tuners:"
for i in $(seq 1 "$tuners"); do
  [ "$i" -eq "$victim" ] || grep "^batch figure: $problems problems:" "$work/tuner-$i.log" | sed "s/^/  tuner-$i: /"
done
[ "$status" -eq 0 ] && echo "figure: PASS" || echo "figure: FAIL"
exit "$status"
