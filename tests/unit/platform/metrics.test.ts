import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bearerMatches } from '@/server/http/metrics';
import { metricNames, metrics, recordDecision, recordRequest, renderMetrics } from '@/server/observability/metrics';
import { scanLogDir } from '../../helpers/logScan';
import { parsePrometheusText, sampleValue } from '../../helpers/promText';

/**
 * The metrics registry (docs/operations.md "Metrics"): its exposition parses strictly, the
 * boundary helpers move what they should, and docs/grafana-dashboard.json queries only names
 * the registry exports.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('metrics', () => {
  it('renders strict Prometheus text with every metric of docs/operations.md', async () => {
    const families = parsePrometheusText((await renderMetrics()).text);
    for (const name of [
      'scheduler_http_requests_total',
      'scheduler_http_request_duration_seconds',
      'scheduler_decisions_total',
      'scheduler_claim_queue_wait_seconds',
      'scheduler_claim_lock_wait_seconds',
      'scheduler_preemptions_total',
      'scheduler_idempotent_replays_total',
      'scheduler_idempotency_conflicts_total',
      'scheduler_rate_limit_refusals_total',
      'scheduler_webhook_deliveries_total',
      'scheduler_webhook_delivery_lag_seconds',
      'scheduler_webhook_queue_depth',
      'scheduler_calendar_sync_runs_total',
      'scheduler_calendar_sync_errors_total',
      'scheduler_calendar_mirror_age_seconds',
      'scheduler_mail_messages_total',
      'scheduler_db_pool_max',
      'scheduler_db_transactions_in_flight',
      'scheduler_db_pool_waiting',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_gc_duration_seconds',
    ]) {
      expect(families.has(name), name).toBe(true);
    }
    // Each is explained in docs/operations.md.
    const doc = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
    const undocumented = metricNames().filter((n) => n.startsWith('scheduler_') && !doc.includes(`\`${n}\``));
    expect(undocumented, 'metrics missing from docs/operations.md').toEqual([]);
  });

  it('counts a request by route template, method and status, and its duration', async () => {
    const before = parsePrometheusText((await renderMetrics()).text);
    const labels = { route: '/v1/test/{id}', method: 'POST', status: '201' };
    recordRequest(labels.route, labels.method, 201, 0.02);
    recordRequest(labels.route, labels.method, 201, 0.3);
    recordDecision('booking.create', 'reject', 'NO_CAPACITY');
    const after = parsePrometheusText((await renderMetrics()).text);
    expect(sampleValue(after, 'scheduler_http_requests_total', labels) - sampleValue(before, 'scheduler_http_requests_total', labels)).toBe(2);
    expect(sampleValue(after, 'scheduler_http_request_duration_seconds_count', labels)).toBe(2);
    expect(sampleValue(after, 'scheduler_http_request_duration_seconds_bucket', { ...labels, le: '0.025' })).toBe(1);
    expect(sampleValue(after, 'scheduler_decisions_total', { action: 'booking.create', outcome: 'reject', reason: 'NO_CAPACITY' })).toBe(1);
  });

  it('one registry per process, on globalThis (Next bundles instrumentation.ts and the routes apart)', () => {
    expect(metrics()).toBe(metrics());
    expect((globalThis as unknown as Record<symbol, { metrics?: unknown }>)[Symbol.for('agent-scheduler.metrics')].metrics).toBe(metrics());
  });

  it('docs/grafana-dashboard.json queries only metrics the registry exports', () => {
    const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/grafana-dashboard.json'), 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
    const registered = new Set(metricNames());
    const histograms = new Set(metrics().registry.getMetricsAsArray().filter((m) => (m as unknown as { type: string }).type === 'histogram').map((m) => m.name));
    const queried = new Set<string>();
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const t of panel.targets) for (const m of t.expr.matchAll(/\b((?:scheduler|nodejs|process)_[a-z0-9_]+)\b/g)) queried.add(m[1]);
    }
    const unknown = [...queried].filter((name) => {
      if (registered.has(name)) return false;
      const base = name.replace(/_(bucket|sum|count)$/, '');
      return !(base !== name && histograms.has(base));
    });
    expect(queried.size).toBeGreaterThan(15);
    expect(unknown, 'dashboard names no registered metric').toEqual([]);
    // The SLO panels of docs/operations.md are there.
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n');
    for (const needle of ['route="/v1/bookings"', 'status=~"5..', 'scheduler_webhook_delivery_lag_seconds_bucket', 'scheduler_calendar_mirror_age_seconds', 'policy=~"signIn.*"']) {
      expect(exprs).toContain(needle);
    }
  });

  it('the scrape token is compared exactly', () => {
    expect(bearerMatches('Bearer s3cret-token', 's3cret-token')).toBe(true);
    expect(bearerMatches('bearer s3cret-token', 's3cret-token')).toBe(true);
    expect(bearerMatches('Bearer s3cret-tokeN', 's3cret-token')).toBe(false);
    expect(bearerMatches('Bearer s3cret', 's3cret-token')).toBe(false);
    expect(bearerMatches('Basic s3cret-token', 's3cret-token')).toBe(false);
    expect(bearerMatches(null, 's3cret-token')).toBe(false);
  });

  it("reports the admission limit's line as scripts/serve.mjs registers it (docs/operations.md \"Admission limit\")", async () => {
    const key = Symbol.for('agent-scheduler.admission');
    const g = globalThis as Record<symbol, unknown>;
    const saved = g[key];
    try {
      delete g[key];
      let f = parsePrometheusText((await renderMetrics()).text);
      expect(sampleValue(f, 'scheduler_http_admission_active')).toBe(0);
      expect(sampleValue(f, 'scheduler_http_admission_waiting')).toBe(0);
      g[key] = { stats: () => ({ active: 64, waiting: 17 }) };
      f = parsePrometheusText((await renderMetrics()).text);
      expect(sampleValue(f, 'scheduler_http_admission_active')).toBe(64);
      expect(sampleValue(f, 'scheduler_http_admission_waiting')).toBe(17);
    } finally {
      g[key] = saved;
    }
  });
});

describe('the Prometheus text parser (tests/helpers/promText.ts)', () => {
  it('reads samples, labels with escapes and histograms', () => {
    const f = parsePrometheusText(
      ['# HELP a_total Things.', '# TYPE a_total counter', 'a_total{x="q\\"uote\\\\",y="b"} 3', '# TYPE h histogram', 'h_bucket{le="0.1"} 1', 'h_bucket{le="+Inf"} 2', 'h_sum 0.3', 'h_count 2', ''].join('\n'),
    );
    expect(sampleValue(f, 'a_total', { x: 'q"uote\\' })).toBe(3);
    expect(sampleValue(f, 'h_count')).toBe(2);
    expect(f.get('a_total')?.help).toBe('Things.');
  });

  it('refuses what is not the format', () => {
    for (const bad of [
      'undeclared 1',
      '# TYPE a counter\na{x="1"} one',
      '# TYPE a counter\na{x=1} 1',
      '# TYPE a counter\na{x="1"} 1\na{x="1"} 2',
      '# TYPE h histogram\nh_bucket 1',
      '# TYPE a bogus',
      '# TYPE a counter\na{x="\\q"} 1',
    ]) {
      expect(() => parsePrometheusText(bad), bad).toThrow();
    }
  });
});

describe('the run log scan (tests/helpers/logScan.ts)', () => {
  it('finds uncensored secret shapes and registered values, and passes censored lines', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logscan-'));
    try {
      fs.writeFileSync(path.join(dir, 'secrets-1.txt'), 'hunter2-but-longer\n');
      fs.writeFileSync(path.join(dir, '1.ndjson'), '{"msg":"ok","key":"ak_[REDACTED]"}\n{"msg":"fine"}\n');
      expect(scanLogDir(dir)).toEqual([]);
      fs.appendFileSync(path.join(dir, '1.ndjson'), `{"msg":"x","t":"cv_${'A'.repeat(43)}"}\n{"password":"hunter2-but-longer"}\n`);
      expect(scanLogDir(dir).map((l) => l.line)).toEqual([3, 4]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
