import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { expect, test } from './test';
import { baseUrls, databaseUrl, PROJECT_ROOT, usesPostgres } from './servers';

const run = promisify(execFile);

test.describe('CLI bootstrap', () => {
  test.skip(
    !usesPostgres,
    'needs E2E_DATABASE_URL: on the embedded PGlite the server process owns the database, so the CLI cannot open it while the server runs',
  );

  test('prints one JSON object whose key works at once on every instance', async ({ request }) => {
    const suffix = randomBytes(4).toString('hex');
    const customer = `E2E ${suffix}`;
    // `-s` keeps npm's "> script" banner off stdout; the CLI itself prints only the JSON object there.
    const { stdout } = await run('npm', ['run', '-s', 'cli', '--', 'bootstrap', '--customer', customer, '--json'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, PGLITE_DIR: '', DB_DRIVER: '' },
      timeout: 90_000,
    });
    expect(stdout.trim().split('\n'), `stdout was: ${stdout}`).toHaveLength(1);
    const created = JSON.parse(stdout);
    expect(Object.keys(created).sort()).toEqual(['agent_id', 'api_key', 'customer_id']);
    expect(created.api_key).toMatch(/^ak_/);
    const auth = { Authorization: `Bearer ${created.api_key}` };

    for (const [i, base] of baseUrls.entries()) {
      const email = `owner-${i}-${suffix}@e2e.example`;
      const owner = await request.post(`${base}/v1/owners`, { headers: auth, data: { email, name: `Owner ${i}`, time_zone: 'Europe/Berlin' } });
      expect(owner.status(), await owner.text()).toBe(201);
      expect(await owner.json()).toMatchObject({ owner_email: email, time_zone: 'Europe/Berlin' });

      // Read back on every instance: they share one database.
      for (const other of baseUrls) {
        const rules = await request.get(`${other}/v1/schedule-rules`, { headers: auth, params: { owner_email: email } });
        expect(rules.status(), await rules.text()).toBe(200);
        const body = await rules.json();
        expect(body).toMatchObject({ owner_email: email, working_hours: null });
        expect(body.warnings).toContain('WORKING_HOURS_NOT_CONFIGURED');
      }

      const classes = await request.get(`${base}/v1/meeting-classes`, { headers: auth });
      expect(classes.status(), await classes.text()).toBe(200);
      expect(await classes.json()).toMatchObject({ meeting_classes: [], owners: expect.arrayContaining([expect.objectContaining({ owner_email: email })]), owners_truncated: false });
    }

    // An unknown key is refused.
    const unknown = await request.get(`${baseUrls[0]}/v1/meeting-classes`, { headers: { Authorization: 'Bearer ak_not_a_real_key' } });
    expect(unknown.status()).toBe(401);
  });
});
