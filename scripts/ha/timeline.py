#!/usr/bin/python3
"""Time-line of a failover on the scripts/ha/ha.sh topology (docs/operations.md "High availability").

Samples every 20 ms, on one clock, and prints each change as `HH:MM:SS.mmm source state`:
  api1/api2    Patroni's REST GET /primary on each node (what HAProxy checks)
  haproxy      the state HAProxy's stats page gives each server (node1/node2)
  bouncer      a write (select txid_current()) through PgBouncer, on a connection re-opened after a failure
  direct       the same write through HAProxy's primary port
and HAProxy's own log lines (checks, state changes) sent to a UDP port (HA_TRACE_LOG_PORT) when
ha.sh ran with HA_TRACE=1.

  HA_PORT_BASE=4420 /usr/bin/python3 scripts/ha/timeline.py [seconds]   (stops on SIGTERM / Ctrl-C too)
"""
import os
import signal
import socket
import sys
import threading
import time
import urllib.request

import psycopg2

B = int(os.environ.get('HA_PORT_BASE', '3620'))
LOG_PORT = int(os.environ.get('HA_TRACE_LOG_PORT', str(B + 10)))
DB = os.environ.get('HA_DB', 'scheduler')
lock = threading.Lock()


def out(source, state):
    now = time.time()
    stamp = time.strftime('%H:%M:%S', time.gmtime(now)) + '.%03d' % int((now % 1) * 1000)
    with lock:
        print(f'{stamp} {source} {state}', flush=True)


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=0.3) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, ''
    except Exception as e:  # refused, timed out
        return type(e).__name__, ''


def haproxy_states():
    status, body = http_status(f'http://127.0.0.1:{B + 7}/;csv')
    if status != 200:
        return f'stats {status}'
    rows = [line.split(',') for line in body.splitlines() if line.startswith('primary,node')]
    return ' '.join(f'{r[1]}={r[17]}' for r in rows)


class Probe:
    def __init__(self, port):
        self.port, self.conn = port, None

    def state(self):
        try:
            if self.conn is None:
                self.conn = psycopg2.connect(host='127.0.0.1', port=self.port, dbname=DB, user='postgres', connect_timeout=1)
                self.conn.autocommit = True
            with self.conn.cursor() as cur:
                cur.execute('select txid_current(), inet_server_port()')
                return f'ok (server port {cur.fetchone()[1]})'
        except Exception as e:
            try:
                self.conn and self.conn.close()
            except Exception:
                pass
            self.conn = None
            return 'error ' + (str(e).strip().splitlines() or [type(e).__name__])[0][:90]


def syslog_listener():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('127.0.0.1', LOG_PORT))
    while True:
        msg = s.recv(8192).decode(errors='replace').strip()
        msg = msg.split(': ', 1)[-1] if ': ' in msg else msg
        if not msg.startswith('Connect from'):
            out('haproxy-log', msg)


def watch(source, sample, end):
    """One thread per source, so a probe held up (a write waiting in PgBouncer) does not stop the others."""
    last = None
    while time.time() < end:
        state = sample()
        if state != last:
            out(source, state)
            last = state
        time.sleep(0.02)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1e9
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    threading.Thread(target=syslog_listener, daemon=True).start()
    end = time.time() + seconds
    sources = {
        'api1': lambda: http_status(f'http://127.0.0.1:{B + 4}/primary')[0],
        'api2': lambda: http_status(f'http://127.0.0.1:{B + 5}/primary')[0],
        'haproxy': haproxy_states,
        'bouncer': Probe(B + 8).state,
        'direct': Probe(B + 6).state,
    }
    threads = [threading.Thread(target=watch, args=(k, v, end), daemon=True) for k, v in sources.items()]
    for t in threads:
        t.start()
    while time.time() < end:
        time.sleep(0.2)

if __name__ == '__main__':
    main()
