# A throwaway PostgreSQL server for the store tests, sourced by .ci/run (bash).
#
# start_test_postgres: installs PostgreSQL from Debian's packages when its binaries are missing, starts a server
# as the unprivileged `postgres` user in a new temporary folder, on a free loopback port, waits until it accepts
# connections, creates a role and a database for the tests, and exports BROKERGATEWAY_TEST_POSTGRES_URL. The
# server is stopped and its folder removed when the calling shell exits (a trap on EXIT). Running it again in the
# same shell reuses the server.

pg_bin_dir() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; fi
  done | sort -V | tail -n 1
}

stop_test_postgres() {
  if [ -n "${BROKERGATEWAY_PG_DIR:-}" ] && [ -d "$BROKERGATEWAY_PG_DIR" ]; then
    runuser -u postgres -- "$BROKERGATEWAY_PG_BIN/pg_ctl" -D "$BROKERGATEWAY_PG_DIR/data" -m immediate -w stop \
      >/dev/null 2>&1 || true
    rm -rf "$BROKERGATEWAY_PG_DIR"
  fi
}

start_test_postgres() {
  if [ -n "${BROKERGATEWAY_TEST_POSTGRES_URL:-}" ]; then
    echo "PostgreSQL for the tests: already set"
    return 0
  fi
  if ! command -v psql >/dev/null 2>&1 || [ -z "$(pg_bin_dir)" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  BROKERGATEWAY_PG_BIN="$(pg_bin_dir)"
  if [ -z "$BROKERGATEWAY_PG_BIN" ]; then echo "PostgreSQL binaries not found after install" >&2; return 1; fi
  # The server refuses to run as root: it runs as the package's `postgres` user (made here if the package did not).
  if ! id postgres >/dev/null 2>&1; then useradd --system --no-create-home --shell /usr/sbin/nologin postgres; fi

  BROKERGATEWAY_PG_DIR="$(mktemp -d /tmp/brokergateway-pg.XXXXXX)"
  chown postgres "$BROKERGATEWAY_PG_DIR"
  chmod 700 "$BROKERGATEWAY_PG_DIR"
  trap stop_test_postgres EXIT
  local port password
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
  password="$(python3 -c 'import secrets; print(secrets.token_hex(16))')"

  runuser -u postgres -- "$BROKERGATEWAY_PG_BIN/initdb" -D "$BROKERGATEWAY_PG_DIR/data" -U postgres \
    --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
  # Many parallel tests each open a small pool: room for them; fsync off, the data is thrown away.
  runuser -u postgres -- "$BROKERGATEWAY_PG_BIN/pg_ctl" -D "$BROKERGATEWAY_PG_DIR/data" -l "$BROKERGATEWAY_PG_DIR/log" -w \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$BROKERGATEWAY_PG_DIR -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null
  local tries=0
  until "$BROKERGATEWAY_PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port"; do
    tries=$((tries + 1))
    if [ "$tries" -ge 60 ]; then echo "PostgreSQL did not start:" >&2; cat "$BROKERGATEWAY_PG_DIR/log" >&2; return 1; fi
    sleep 0.5
  done
  # The tests create and drop a schema each, so the role owns its database.
  runuser -u postgres -- "$BROKERGATEWAY_PG_BIN/psql" -q -h "$BROKERGATEWAY_PG_DIR" -p "$port" -U postgres -d postgres \
    -v ON_ERROR_STOP=1 -c "CREATE ROLE brokergateway LOGIN PASSWORD '$password'" \
    -c "CREATE DATABASE brokergateway_test OWNER brokergateway" >/dev/null
  BROKERGATEWAY_TEST_POSTGRES_URL="postgres://brokergateway:$password@127.0.0.1:$port/brokergateway_test"
  export BROKERGATEWAY_TEST_POSTGRES_URL BROKERGATEWAY_PG_DIR BROKERGATEWAY_PG_BIN
  echo "PostgreSQL for the tests: $("$BROKERGATEWAY_PG_BIN/postgres" --version), 127.0.0.1:$port"
}
