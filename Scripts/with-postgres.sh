#!/usr/bin/env bash
# Runs a command with a private PostgreSQL server of its own, then stops and removes it.
# make test runs the PostgreSQL store's tests under it.
#
#   Scripts/with-postgres.sh command [arguments…]
#
# Installs nothing (make deps installs the postgresql package) and touches no system
# service: the data directory and the socket directory live in a temporary directory,
# the server listens on 127.0.0.1 on a free port, and everything is removed afterwards.
# As root (initdb refuses root) the server runs as the postgres user, which owns the
# temporary directory. The command gets:
#   LATCHKEY_TEST_POSTGRES_URL      postgres://latchkey_test:…@127.0.0.1:PORT/latchkey_test?sslmode=disable
#   LATCHKEY_TEST_POSTGRES_RESTART  a script that restarts the server (same port, same data)
#   LATCHKEY_TEST_POSTGRES_DATA     the data directory (to scan its files for clear text)
# With LATCHKEY_TEST_POSTGRES_ALSO_LISTEN (addresses, comma-separated) the server listens
# there too, and LATCHKEY_TEST_POSTGRES_CLIENTS (a CIDR) may log in from there
# (Scripts/fleet-network.sh: the fleet soak's network namespaces).
# Where the server cannot start (no PostgreSQL installed, initdb fails) the command still
# runs and its PostgreSQL tests skip with a warning; under CI=true that is a failure.
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: $0 command [arguments…]" >&2; exit 64; }

work=$(mktemp -d /tmp/latchkey-postgres-XXXXXX)
chmod 700 "$work"
as_owner=()
server_started=""
cleanup() {
  if [ -n "$server_started" ]; then
    "${as_owner[@]}" "$bindir/pg_ctl" -D "$work/data" -m immediate -w -t 60 stop >/dev/null 2>&1
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

unavailable() {
  local why=$1
  shift
  if [ "${CI:-}" = true ]; then
    echo "with-postgres: $why (CI=true: the PostgreSQL tests must run)" >&2
    exit 1
  fi
  echo "with-postgres: WARNING: $why; running without PostgreSQL (its tests skip)" >&2
  "$@"
}

start() {
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$bindir" ] && [ -x "$bindir/initdb" ] || { echo "PostgreSQL's server is not installed (apt-get install postgresql)"; return 1; }
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || { echo "running as root and there is no postgres user to run the server as"; return 1; }
    chown postgres: "$work"
    as_owner=(runuser -u postgres --)
  fi
  local admin_password user_password
  admin_password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  user_password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  printf '%s\n' "$admin_password" >"$work/admin.pw"
  chmod 600 "$work/admin.pw"
  [ "$(id -u)" = 0 ] && chown postgres: "$work/admin.pw"
  "${as_owner[@]}" mkdir -m 700 "$work/data" "$work/socket" || { echo "cannot create the server's directories"; return 1; }
  "${as_owner[@]}" "$bindir/initdb" -D "$work/data" -U latchkey_admin --pwfile="$work/admin.pw" \
    --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$work/initdb.log" 2>&1 \
    || { echo "initdb failed: $(tail -n 5 "$work/initdb.log")"; return 1; }
  local listen="127.0.0.1${LATCHKEY_TEST_POSTGRES_ALSO_LISTEN:+,$LATCHKEY_TEST_POSTGRES_ALSO_LISTEN}"
  if [ -n "${LATCHKEY_TEST_POSTGRES_CLIENTS:-}" ]; then
    echo "host all latchkey_test ${LATCHKEY_TEST_POSTGRES_CLIENTS} scram-sha-256" | "${as_owner[@]}" tee -a "$work/data/pg_hba.conf" >/dev/null
  fi
  # A port no one listens on: try a few at random (postgres refuses one in use).
  local try
  for try in $(seq 1 20); do
    port=$(( 20000 + RANDOM % 40000 ))
    if "${as_owner[@]}" "$bindir/pg_ctl" -D "$work/data" -l "$work/server.log" -w -t 120 \
        -o "-p $port -k $work/socket -c listen_addresses=$listen -c fsync=off -c max_connections=200" start >/dev/null 2>&1; then
      server_started=1
      break
    fi
    grep -q "in use" "$work/server.log" 2>/dev/null || { echo "the server did not start: $(tail -n 5 "$work/server.log")"; return 1; }
  done
  [ -n "$server_started" ] || { echo "no free port found for the server"; return 1; }
  PGPASSWORD=$admin_password "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U latchkey_admin -d postgres \
    -c "CREATE ROLE latchkey_test LOGIN PASSWORD '$user_password'" \
    -c "CREATE DATABASE latchkey_test OWNER latchkey_test" >"$work/psql.log" 2>&1 \
    || { echo "could not create the test role and database: $(tail -n 5 "$work/psql.log")"; return 1; }
  cat >"$work/restart" <<EOF
#!/usr/bin/env bash
exec ${as_owner[*]} "$bindir/pg_ctl" -D "$work/data" -l "$work/server.log" -m fast -w -t 120 restart \
  -o "-p $port -k $work/socket -c listen_addresses=$listen -c fsync=off -c max_connections=200" >/dev/null
EOF
  chmod 755 "$work/restart"
  url="postgres://latchkey_test:$user_password@127.0.0.1:$port/latchkey_test?sslmode=disable"
}

# start runs in this shell (not a $(…) subshell) so cleanup sees the server.
if ! start >"$work/why" 2>&1; then
  unavailable "$(cat "$work/why")" "$@"
  exit $?
fi
# In the background so a TERM or INT reaches the traps (and stops the server) at once.
LATCHKEY_TEST_POSTGRES_URL=$url LATCHKEY_TEST_POSTGRES_RESTART="$work/restart" LATCHKEY_TEST_POSTGRES_DATA="$work/data" "$@" &
command_pid=$!
trap 'kill -TERM "$command_pid" 2>/dev/null; exit 143' TERM
trap 'kill -INT "$command_pid" 2>/dev/null; exit 130' INT
wait "$command_pid"
