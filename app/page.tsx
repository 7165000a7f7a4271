import Link from 'next/link';
import { Origin } from './origin';
import { Providers } from '@/components/trpc-provider';
import { ServiceStatus } from './service-status';
import './landing.css';

const RULES_BODY = `{
    "owner_email": "ada@acme.example",
    "working_hours": {
      "mon": [{"start": "09:00", "end": "17:00"}],
      "tue": [{"start": "09:00", "end": "17:00"}],
      "wed": [{"start": "09:00", "end": "17:00"}],
      "thu": [{"start": "09:00", "end": "17:00"}],
      "fri": [{"start": "09:00", "end": "13:00"}]
    },
    "hard_blocks": [
      {"days": ["mon", "tue", "wed", "thu", "fri"],
       "start": "12:00", "end": "13:00", "label": "Lunch"}
    ],
    "max_daily_meeting_hours": 6
  }`;

export default function Home() {
  return (
    <main className="landing">
      <header className="hero">
        <p className="eyebrow">Scheduling API for software agents</p>
        <h1>Agent Scheduler</h1>
        <p className="lede">
          Agents search availability, hold times and book meetings on people’s calendars. Every booking goes through
          arbitration, which weighs meeting-class priority, working hours, hard blocks, daily limits, protected meetings and
          the agent’s permissions, and answers accept, reject or counter-propose with alternatives. External requesters
          send booking proposals through public scheduling links, and the calendar owner reviews them.
        </p>
        <Providers>
          <ServiceStatus />
        </Providers>
        <nav className="links" aria-label="Reference">
          <a href="/v1/openapi.json">OpenAPI 3.1 document</a>
          {/* A route handler, not a page: a plain link (eslint: no-html-link-for-pages reads it as a page). */}
          {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
          <a href="/api/health">Health check</a>
          <Link href="/dashboard">Owner dashboard</Link>
        </nav>
      </header>

      <section aria-labelledby="quickstart">
        <h2 id="quickstart">Quickstart for agents</h2>
        <ol className="steps">
          <li>
            <h3>Bootstrap a customer and its first key</h3>
            <p>
              On the server’s machine, against the configured database. It prints the first admin agent and its API key
              (<code>ak_…</code>, shown once, every permission, scope <code>org:*</code>):
            </p>
            <pre>
              <code>{`npm run -s cli -- bootstrap --customer "Acme" --json
{"customer_id":"…","agent_id":"…","api_key":"ak_…"}

export BASE=`}<Origin />{` KEY=ak_…`}</code>
            </pre>
          </li>
          <li>
            <h3>Create a calendar owner</h3>
            <p>
              A new owner gets an internal primary calendar. Until rules are set, answers carry the warning{' '}
              <code>WORKING_HOURS_NOT_CONFIGURED</code> and no time-of-day restriction applies.
            </p>
            <pre>
              <code>{`curl -X POST "$BASE/v1/owners" \\
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \\
  -d '{"email": "ada@acme.example", "name": "Ada", "time_zone": "Europe/Berlin"}'`}</code>
            </pre>
          </li>
          <li>
            <h3>Set working hours, hard blocks and a daily limit</h3>
            <p>Times are local to the owner’s time zone; a weekday left out is not a working day.</p>
            <pre>
              <code>{`curl -X PUT "$BASE/v1/schedule-rules" \\
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \\
  -d '${RULES_BODY}'`}</code>
            </pre>
          </li>
          <li>
            <h3>Register meeting classes</h3>
            <p>
              Classes are per customer and referenced by name. Higher priority wins; a class with{' '}
              <code>preempt_policy: never</code> never displaces anything.
            </p>
            <pre>
              <code>{`curl -X POST "$BASE/v1/meeting-classes" \\
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \\
  -d '{"name": "external", "priority": 50}'`}</code>
            </pre>
          </li>
          <li>
            <h3>Find time, hold it, confirm it</h3>
            <p>
              <code>POST /v1/availability/search</code> returns candidate slots, <code>POST /v1/holds</code> claims one
              for a few minutes, and <code>POST /v1/bookings/{'{hold_id}'}/confirm</code> turns it into a booking. Send an{' '}
              <code>Idempotency-Key</code> header on every mutating call so retries are safe.
            </p>
          </li>
        </ol>
      </section>

      <section aria-labelledby="contract">
        <h2 id="contract">What to rely on</h2>
        <dl className="facts">
          <div>
            <dt>Errors</dt>
            <dd>
              One envelope: <code>{'{error: {code, message, reason?}, pending_notifications}'}</code>. Switch on{' '}
              <code>code</code>; rejected bookings carry up to three <code>alternatives</code>.
            </dd>
          </div>
          <div>
            <dt>Notifications</dt>
            <dd>
              Preemptions, expired holds and reviewed proposals queue up per agent and arrive in every error body and from{' '}
              <code>GET /v1/notifications</code>.
            </dd>
          </div>
          <div>
            <dt>Rate limits</dt>
            <dd>
              <code>RateLimit-*</code> headers on every response; a 429 says how long to wait in <code>Retry-After</code>.
            </dd>
          </div>
          <div>
            <dt>Keys</dt>
            <dd>
              Scoped to all owners (<code>org:*</code>) or one (<code>user:&lt;email&gt;</code>), with explicit permissions
              such as <code>create_bookings</code> and <code>preempt</code>. Mint and revoke them under{' '}
              <code>/v1/agents</code>.
            </dd>
          </div>
        </dl>
      </section>

      <footer>
        <p>
          Full request and response shapes: <a href="/v1/openapi.json">/v1/openapi.json</a>. Running, configuration and
          the CLI: <code>README.md</code> and <code>docs/operations.md</code> in the repository.
        </p>
      </footer>
    </main>
  );
}
