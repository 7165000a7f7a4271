#!/usr/bin/env bash
# The integration suite's claim tests with the service on PgBouncer in transaction pooling
# (docs/operations.md "High availability"; issue 43's CI proof): PgBouncer on loopback in front
# of the test database, DATABASE_PREPARE=0 (unnamed statements), DATABASE_DIRECT_URL to
# PostgreSQL itself for the migration lock and LISTEN.
#
#   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> scripts/ha/pgbouncer-claims.sh [test files...]
#
# PGBOUNCER_PORT (default 3630) is where PgBouncer listens. Needs the pgbouncer binary
# (apt-get install -y pgbouncer); says so and exits 2 without it.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${TEST_DATABASE_URL:?set TEST_DATABASE_URL=postgres://user@127.0.0.1:5432/db (the database PgBouncer fronts)}"
PGBOUNCER_BIN=${PGBOUNCER_BIN:-$(command -v pgbouncer || echo /usr/sbin/pgbouncer)}
if [ ! -x "$PGBOUNCER_BIN" ]; then
  echo "pgbouncer is not installed: apt-get install -y pgbouncer (or set PGBOUNCER_BIN)" >&2
  exit 2
fi
PORT=${PGBOUNCER_PORT:-3630}
# host, port, user and database of TEST_DATABASE_URL
read -r PGH PGP PGU PGD < <(node -e 'const u=new URL(process.argv[1]);console.log(u.hostname||"127.0.0.1",u.port||5432,decodeURIComponent(u.username||"postgres"),u.pathname.slice(1))' "$TEST_DATABASE_URL")
DIR=$(mktemp -d /tmp/pgbouncer-claims.XXXXXX)
RUN_AS=()
if [ "$(id -u)" = 0 ]; then chown postgres "$DIR"; RUN_AS=(runuser -u postgres --); fi
cat > "$DIR/pgbouncer.ini" <<INI
[databases]
$PGD = host=$PGH port=$PGP dbname=$PGD user=$PGU
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PORT
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
server_reset_query =
ignore_startup_parameters = extra_float_digits,options
logfile = $DIR/pgbouncer.log
pidfile = $DIR/pgbouncer.pid
INI
"${RUN_AS[@]}" "$PGBOUNCER_BIN" -d "$DIR/pgbouncer.ini"
cleanup() { [ -f "$DIR/pgbouncer.pid" ] && kill "$(cat "$DIR/pgbouncer.pid")" 2>/dev/null || true; sleep 0.3; rm -rf "$DIR"; }
trap cleanup EXIT
for _ in $(seq 50); do (echo > /dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done

FILES=("$@")
if [ ${#FILES[@]} -eq 0 ]; then
  FILES=(tests/integration/scheduling/races.test.ts tests/integration/scheduling/groupRaces.test.ts tests/integration/scheduling/holds.test.ts
    tests/integration/scheduling/flow.test.ts tests/integration/scheduling/groupClaims.test.ts tests/integration/platform/exclusion.test.ts
    tests/integration/platform/idempotency.test.ts)
fi
echo "claim tests through PgBouncer (transaction pooling) on 127.0.0.1:$PORT -> $PGH:$PGP/$PGD, DATABASE_PREPARE=0"
DIRECT_URL=$TEST_DATABASE_URL
TEST_DATABASE_URL="postgres://$PGU@127.0.0.1:$PORT/$PGD" DATABASE_PREPARE=0 DATABASE_DIRECT_URL="$DIRECT_URL" \
  npx vitest run --project integration-pg "${FILES[@]}"
