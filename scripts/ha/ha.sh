#!/usr/bin/env bash
# The high-availability topology of docs/operations.md "High availability", on one machine, on
# loopback: etcd (one member), two PostgreSQL 15 nodes under Patroni (synchronous_mode), HAProxy
# sending connections to whichever node Patroni's REST API calls primary, PgBouncer (transaction
# pooling) in front of HAProxy, and (with APP_DIR, a built checkout) three app instances sharing Redis.
#
#   scripts/ha/ha.sh start | stop | status | leader | kill-leader | switchover | start-node <n>
#
# Everything lives under HA_DIR (default /tmp/h43-ha); nothing of the Debian services' systemd
# units is used. Ports (HA_PORT_BASE, default 3620): etcd +0 (client) +1 (peer), PostgreSQL
# nodes +2 +3, Patroni REST +4 +5, HAProxy primary +6 and stats +7, PgBouncer +8. App instances
# on APP_PORTS (default "3610 3611 3612"), REDIS_URL (default redis://127.0.0.1:6379/7).
set -euo pipefail
HA_DIR=${HA_DIR:-/tmp/h43-ha}
B=${HA_PORT_BASE:-3620}
ETCD=$B; ETCD_PEER=$((B+1)); PG1=$((B+2)); PG2=$((B+3)); API1=$((B+4)); API2=$((B+5)); PRIMARY=$((B+6)); STATS=$((B+7)); BOUNCER=$((B+8))
APP_PORTS=${APP_PORTS:-"3610 3611 3612"}
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/7}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
DB=${HA_DB:-scheduler}
export HA_DIR

missing=()
for bin in etcd patroni patronictl haproxy pgbouncer; do command -v $bin >/dev/null || missing+=($bin); done
[ -x "$PG_BIN/postgres" ] || missing+=("postgresql-15 ($PG_BIN)")
if [ ${#missing[@]} -gt 0 ]; then
  echo "missing: ${missing[*]} — apt-get install -y patroni etcd-server pgbouncer haproxy postgresql-15" >&2
  exit 2
fi
AS_PG=(); [ "$(id -u)" = 0 ] && AS_PG=(runuser -u postgres --)

wait_port() { for _ in $(seq 1 "${2:-100}"); do (echo > /dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.2; done; echo "port $1 did not open" >&2; return 1; }
api() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/$2" || true; }

# HA_TRACE=1 (scripts/ha/timeline.py): PostgreSQL logs to <data>/log with millisecond stamps, HAProxy
# logs its checks and state changes to UDP 127.0.0.1:HA_PORT_BASE+10.
TRACE_PG=""; TRACE_HAPROXY_GLOBAL=""; TRACE_HAPROXY_DEFAULTS=""
if [ -n "${HA_TRACE:-}" ]; then
  TRACE_PG=", logging_collector: 'on', log_line_prefix: '%m [%p] ', log_checkpoints: 'on'"
  TRACE_HAPROXY_GLOBAL="  log 127.0.0.1:$((B+10)) local0"
  TRACE_HAPROXY_DEFAULTS=$'  log global\n  option log-health-checks'
fi

patroni_yml() { # name pgport apiport
  cat <<YML
scope: h43ha
name: $1
restapi: { listen: 127.0.0.1:$3, connect_address: 127.0.0.1:$3 }
etcd3: { hosts: 127.0.0.1:$ETCD }
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 1
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters: { max_connections: 200, wal_level: replica, hot_standby: 'on', wal_log_hints: 'on', max_wal_senders: 10, max_replication_slots: 10, wal_keep_size: 256MB, shared_buffers: 64MB }
  initdb: [ { encoding: UTF8 }, { locale: C.UTF-8 } ]
  pg_hba:
    - local all all trust
    - host replication all 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:$2
  connect_address: 127.0.0.1:$2
  data_dir: $HA_DIR/$1/data
  bin_dir: $PG_BIN
  pgpass: $HA_DIR/$1/pgpass
  authentication:
    superuser: { username: postgres, password: postgres }
    replication: { username: replicator, password: replicator }
    rewind: { username: postgres, password: postgres }
  parameters: { unix_socket_directories: '$HA_DIR/$1'$TRACE_PG }
  pg_hba:
    - local all all trust
    - host replication all 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false }
YML
}

start_node() { # n
  local n=$1 pg api; pg=$((B+1+n)); api=$((B+3+n))
  mkdir -p "$HA_DIR/node$n"; chown postgres "$HA_DIR/node$n" 2>/dev/null || true; chmod 700 "$HA_DIR/node$n"
  patroni_yml node$n $pg $api > "$HA_DIR/node$n.yml"
  chown postgres "$HA_DIR/node$n.yml" 2>/dev/null || true
  setsid "${AS_PG[@]}" patroni "$HA_DIR/node$n.yml" >> "$HA_DIR/node$n.log" 2>&1 < /dev/null &
  echo $! > "$HA_DIR/node$n.pid"
}

start() {
  mkdir -p "$HA_DIR"; chmod 755 "$HA_DIR"
  setsid etcd --name h43 --data-dir "$HA_DIR/etcd" --listen-client-urls http://127.0.0.1:$ETCD --advertise-client-urls http://127.0.0.1:$ETCD \
    --listen-peer-urls http://127.0.0.1:$ETCD_PEER --initial-advertise-peer-urls http://127.0.0.1:$ETCD_PEER \
    --initial-cluster h43=http://127.0.0.1:$ETCD_PEER --enable-v2=true > "$HA_DIR/etcd.log" 2>&1 < /dev/null &
  echo $! > "$HA_DIR/etcd.pid"; wait_port $ETCD
  start_node 1; wait_port $API1 150
  for _ in $(seq 150); do [ "$(api $API1 primary)" = 200 ] && break; sleep 0.4; done
  start_node 2
  cat > "$HA_DIR/haproxy.cfg" <<CFG
global
  maxconn 2000
$TRACE_HAPROXY_GLOBAL
defaults
  mode tcp
$TRACE_HAPROXY_DEFAULTS
  timeout connect 250ms
  timeout client 30m
  timeout server 30m
  timeout check 1s
  # A refused connection is retried every 250 ms (the turn-around is min(timeout connect, 1 s)),
  # each retry balanced again (redispatch) to whichever node passes /primary by then: during a
  # switchover PgBouncer's login reaches the old primary (shutting down, but passing /primary
  # until Patroni releases the leader key), and with one retry a second to the same node it sat
  # there until PgBouncer's server_connect_timeout (2 s) while the new primary was already up.
  # Eight retries hold a login about as long as that timeout instead of failing it, so PgBouncer
  # answers fewer clients "server login has been failing" (docs/benchmarks/history/2026-11-29-switchover-window.md).
  retries 8
  option redispatch 1
listen stats
  mode http
  bind 127.0.0.1:$STATS
  stats enable
  stats uri /
listen primary
  bind 127.0.0.1:$PRIMARY
  option httpchk OPTIONS /primary
  http-check expect status 200
  default-server inter 250ms fastinter 100ms downinter 250ms fall 1 rise 1 on-marked-down shutdown-sessions
  server node1 127.0.0.1:$PG1 maxconn 300 check port $API1
  server node2 127.0.0.1:$PG2 maxconn 300 check port $API2
CFG
  haproxy -D -f "$HA_DIR/haproxy.cfg" -p "$HA_DIR/haproxy.pid"
  wait_port $PRIMARY
  for _ in $(seq 100); do "$PG_BIN/psql" -h 127.0.0.1 -p $PRIMARY -U postgres -Atc 'select 1' >/dev/null 2>&1 && break; sleep 0.3; done
  "$PG_BIN/psql" -h 127.0.0.1 -p $PRIMARY -U postgres -Atc "select 1 from pg_database where datname = '$DB'" | grep -q 1 || "$PG_BIN/psql" -h 127.0.0.1 -p $PRIMARY -U postgres -c "create database $DB" >/dev/null
  mkdir -p "$HA_DIR/pgbouncer"; chown postgres "$HA_DIR/pgbouncer" 2>/dev/null || true
  cat > "$HA_DIR/pgbouncer/pgbouncer.ini" <<INI
[databases]
$DB = host=127.0.0.1 port=$PRIMARY dbname=$DB user=postgres
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BOUNCER
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 40
server_reset_query =
server_login_retry = 0.2
server_connect_timeout = 2
query_wait_timeout = 20
ignore_startup_parameters = extra_float_digits,options
logfile = $HA_DIR/pgbouncer/pgbouncer.log
pidfile = $HA_DIR/pgbouncer/pgbouncer.pid
INI
  "${AS_PG[@]}" pgbouncer -d "$HA_DIR/pgbouncer/pgbouncer.ini"
  wait_port $BOUNCER
  # synchronous_mode fails over only to the synchronous standby: wait until node2 is one.
  for _ in $(seq 300); do [ "$(api $API2 sync)" = 200 ] && break; sleep 0.4; done
  echo "database: DATABASE_URL=postgres://postgres@127.0.0.1:$BOUNCER/$DB DATABASE_PREPARE=0 DATABASE_DIRECT_URL=postgres://postgres@127.0.0.1:$PRIMARY/$DB"
  if [ -n "${APP_DIR:-}" ]; then start_apps; fi
  status
}

start_apps() {
  local node=${NODE_BIN:-$APP_DIR/node_modules/.bin/node}
  [ -x "$node" ] || node=node
  for port in $APP_PORTS; do
    PORT=$port HOST=127.0.0.1 NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 \
      DATABASE_URL=postgres://postgres@127.0.0.1:$BOUNCER/$DB DATABASE_PREPARE=0 DATABASE_DIRECT_URL=postgres://postgres@127.0.0.1:$PRIMARY/$DB \
      DB_POOL_MAX=${DB_POOL_MAX:-8} REDIS_URL=$REDIS_URL AUTH_SECRET=ha-topology-secret OUTBOUND_ALLOW_PRIVATE=1 \
      WEBHOOK_RETRY_BASE_MS=${WEBHOOK_RETRY_BASE_MS:-300} LOG_LEVEL=${APP_LOG_LEVEL:-warn} ${APP_ENV:-} \
      setsid "$node" "$APP_DIR/scripts/serve.mjs" > "$HA_DIR/app-$port.log" 2>&1 < /dev/null &
    echo $! > "$HA_DIR/app-$port.pid"
  done
  for port in $APP_PORTS; do
    for _ in $(seq 300); do [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$port/api/health/ready || true)" = 200 ] && break; sleep 0.5; done
    echo "app on 127.0.0.1:$port: $(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$port/api/health/ready || true)"
  done
}

leader() { # the node name Patroni calls primary now
  for n in 1 2; do [ "$(api $((B+3+n)) primary)" = 200 ] && { echo node$n; return; }; done; echo none
}

stop_pidfile() { local f=$1 sig=${2:-TERM}; [ -f "$f" ] || return 0; local p; p=$(cat "$f"); kill -$sig -- -"$p" 2>/dev/null || kill -$sig "$p" 2>/dev/null || true; rm -f "$f"; }

kill_node() { # n: kill -9 of the node's Patroni and its PostgreSQL (the machine is gone)
  local n=$1 pgpid=""
  [ -f "$HA_DIR/node$n/data/postmaster.pid" ] && pgpid=$(head -1 "$HA_DIR/node$n/data/postmaster.pid")
  stop_pidfile "$HA_DIR/node$n.pid" KILL
  [ -n "$pgpid" ] && kill -9 "$pgpid" 2>/dev/null || true
}

stop() {
  for port in $APP_PORTS; do stop_pidfile "$HA_DIR/app-$port.pid"; done
  [ -f "$HA_DIR/pgbouncer/pgbouncer.pid" ] && kill "$(cat "$HA_DIR/pgbouncer/pgbouncer.pid")" 2>/dev/null || true
  [ -f "$HA_DIR/haproxy.pid" ] && kill "$(cat "$HA_DIR/haproxy.pid")" 2>/dev/null || true
  for n in 1 2; do stop_pidfile "$HA_DIR/node$n.pid"; done
  sleep 3
  for n in 1 2; do [ -f "$HA_DIR/node$n/data/postmaster.pid" ] && kill -9 "$(head -1 "$HA_DIR/node$n/data/postmaster.pid")" 2>/dev/null || true; done
  stop_pidfile "$HA_DIR/etcd.pid"
  sleep 1
  if [ -n "${HA_KEEP_LOGS:-}" ]; then # a directory to keep the logs in (the time-line of a run)
    mkdir -p "$HA_KEEP_LOGS"; cp "$HA_DIR"/*.log "$HA_DIR"/pgbouncer/*.log "$HA_KEEP_LOGS"/ 2>/dev/null || true
    for n in 1 2; do [ -d "$HA_DIR/node$n/data/log" ] && cp -r "$HA_DIR/node$n/data/log" "$HA_KEEP_LOGS/node$n-postgresql"; done
  fi
  rm -rf "$HA_DIR"
  echo stopped
}

status() {
  echo "leader: $(leader)"
  patronictl -c "$HA_DIR/node1.yml" list 2>/dev/null || true
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  leader) leader ;;
  sync) for n in 1 2; do [ "$(api $((B+3+n)) sync)" = 200 ] && { echo node$n; exit 0; }; done; echo none ;;
  apps) start_apps ;;
  kill-leader) l=$(leader); [ "$l" = none ] && { echo "no leader" >&2; exit 1; }; kill_node "${l#node}"; echo "killed $l" ;;
  start-node) start_node "$2"; echo "started node$2" ;;
  switchover) l=$(leader); c=node$(( ${l#node} == 1 ? 2 : 1 )); patronictl -c "$HA_DIR/node1.yml" switchover --leader "$l" --candidate "$c" --force >/dev/null; echo "switchover $l -> $c" ;;
  *) echo "usage: $0 start|stop|status|leader|apps|kill-leader|switchover|start-node <1|2>" >&2; exit 64 ;;
esac
