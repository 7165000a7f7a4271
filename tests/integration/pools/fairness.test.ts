import { describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { runPoolFairness } from '../../../bench/pool-fairness';
import { driver } from '../../helpers/app';

/**
 * Pool fairness (issue 25; docs/benchmarks.md, "Pool fairness"): bookings of random length
 * (15 to 90 minutes) through one pool of hosts weighted 1, 1, 2, 2, 4, by the same domain
 * calls as POST /v1/bookings with `pool`: each host's share of the booked minutes lands
 * within 5 % of its weight's share. 1,000 bookings on PostgreSQL; 300 on PGlite (slower in
 * process; the rule is the same).
 */
describe('pool fairness', () => {
  it('keeps every host within 5 % of its target share of booked minutes', async () => {
    const bookings = (await driver()) === 'postgres' ? 1000 : 300;
    const r = await runPoolFairness(await getDb(), bookings, [1, 1, 2, 2, 4]);
    console.info(`pool fairness: ${bookings} bookings in ${r.seconds.toFixed(1)} s; shares ${r.rows.map((x) => `${x.host} ${(x.share * 100).toFixed(2)} % (target ${x.target * 100} %)`).join(', ')}; worst ${(r.worst * 100).toFixed(2)} %`);
    for (const row of r.rows) expect(row.off, row.host).toBeLessThanOrEqual(0.05);
  }, 900_000);
});
