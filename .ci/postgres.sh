# Source this (bash) to start a throwaway PostgreSQL server for the store's tests:
#   source .ci/postgres.sh && .venv/bin/python -m pytest -m postgres
# It initialises a cluster in a temporary folder, starts it on a free 127.0.0.1 port (and a unix
# socket in that folder), creates the database arena_test, exports ARENA_TEST_POSTGRES_URL, and
# stops the server and removes the folder when the sourcing shell exits. The server binaries come
# from Debian's postgresql package (.ci/run installs it when /usr/lib/postgresql/*/bin is absent).
# As root (CI), the server runs as the user postgres, since PostgreSQL refuses to run as root.

arena_pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
if [ -z "$arena_pg_bin" ] || [ ! -x "$arena_pg_bin/initdb" ]; then
  echo "postgres.sh: no PostgreSQL server binaries under /usr/lib/postgresql/*/bin" \
    "(apt-get install postgresql)" >&2
  return 1 2>/dev/null || exit 1
fi

arena_pg_as() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin postgres
fi

arena_pg_dir="$(mktemp -d /tmp/arena-pg.XXXXXX)"
[ "$(id -u)" = 0 ] && chown postgres: "$arena_pg_dir"
arena_pg_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

arena_pg_stop() {
  arena_pg_as "$arena_pg_bin/pg_ctl" -D "$arena_pg_dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$arena_pg_dir"
}
trap arena_pg_stop EXIT

arena_pg_as "$arena_pg_bin/initdb" -D "$arena_pg_dir/data" -U postgres --auth=trust -E UTF8 \
  --no-sync >"$arena_pg_dir/initdb.log" 2>&1 \
  || { cat "$arena_pg_dir/initdb.log" >&2; return 1 2>/dev/null || exit 1; }
arena_pg_as "$arena_pg_bin/pg_ctl" -D "$arena_pg_dir/data" -l "$arena_pg_dir/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $arena_pg_port -k $arena_pg_dir -c fsync=off" start \
  >/dev/null || { cat "$arena_pg_dir/server.log" >&2; return 1 2>/dev/null || exit 1; }
arena_pg_as "$arena_pg_bin/createdb" -h 127.0.0.1 -p "$arena_pg_port" -U postgres arena_test

export ARENA_TEST_POSTGRES_URL="postgresql+psycopg://postgres@127.0.0.1:$arena_pg_port/arena_test"
echo "PostgreSQL $("$arena_pg_bin/postgres" --version | awk '{print $3}') for the tests:" \
  "$ARENA_TEST_POSTGRES_URL" >&2
