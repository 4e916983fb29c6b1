# SPDX-License-Identifier: MIT
# Sourced by tools/pg_batch_figure.sh and test/cli/db_postgres.sh: a private PostgreSQL server in a
# temporary folder, listening only on a Unix socket there (no TCP port, no system service).
#   pg_local_start   sets PG_WORK (the folder), PG_BIN, PG_PSQL; returns 77 without server binaries
#   pg_local_url DB  the libpq URL of database DB
#   pg_local_sql DB SQL   runs SQL, unaligned output, fields separated by one space
#   pg_local_stop    stops the server and removes the folder (kept with ROCMTPL_KEEP_TEST_FILES)
# initdb refuses root: as root the server runs as `nobody` (setpriv, else runuser).

pg_local_start() {
  PG_BIN=""
  if command -v initdb > /dev/null; then PG_BIN=$(dirname "$(readlink -f "$(command -v initdb)")"); fi
  if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/pg_ctl" ]; then
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1 || true)
  fi
  if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/initdb" ]; then
    echo "SKIP: PostgreSQL server binaries not found on PATH or in /usr/lib/postgresql/*/bin (apt-get install postgresql)"
    return 77
  fi
  PG_PSQL=$PG_BIN/psql
  [ -x "$PG_PSQL" ] || PG_PSQL=$(command -v psql)
  PG_WORK=$(mktemp -d /tmp/rocmtpl-pg-XXXXXX)  # short: a socket path has at most 107 bytes
  PG_AS_SERVER=()
  if [ "$(id -u)" -eq 0 ]; then
    chown 65534:65534 "$PG_WORK"
    if command -v setpriv > /dev/null; then
      PG_AS_SERVER=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    else
      PG_AS_SERVER=(runuser -u nobody --)
    fi
  fi
  (cd "$PG_WORK" && "${PG_AS_SERVER[@]}" "$PG_BIN/initdb" -D "$PG_WORK/data" -U rocmtpl -A trust -E UTF8 \
    --locale=C --no-sync > "$PG_WORK/initdb.log" 2>&1) || { cat "$PG_WORK/initdb.log"; return 1; }
  (cd "$PG_WORK" && "${PG_AS_SERVER[@]}" "$PG_BIN/pg_ctl" -D "$PG_WORK/data" -l "$PG_WORK/server.log" -w -t 60 \
    -o "-k $PG_WORK -c listen_addresses= -F" start > /dev/null) || { cat "$PG_WORK/server.log"; return 1; }
}

pg_local_url() { echo "postgresql:///$1?host=$PG_WORK&user=rocmtpl"; }

pg_local_sql() { "$PG_PSQL" -h "$PG_WORK" -U rocmtpl -d "$1" -At -F ' ' -q -c "$2"; }

pg_local_stop() {
  [ -n "${PG_WORK:-}" ] || return 0
  (cd "$PG_WORK" && "${PG_AS_SERVER[@]}" "$PG_BIN/pg_ctl" -D "$PG_WORK/data" -m immediate -w stop > /dev/null 2>&1) || true
  [ -n "${ROCMTPL_KEEP_TEST_FILES:-}" ] || rm -rf "$PG_WORK"
}
