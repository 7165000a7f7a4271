/**
 * Admission limit of scripts/serve.mjs (docs/operations.md "Admission limit",
 * docs/benchmarks/history/2026-11-26-server-memory.md): at most `limit` requests are inside Next.js at once; the others wait here, in
 * arrival order, before anything reads their body. A request inside Next.js holds its parsed
 * body, the request and response objects of Next.js and the web API, async contexts and a
 * promise chain down to a database query; a waiting one holds only node:http's request. Under a
 * 500-way race for one slot, 500 requests in Next.js at once took the heap to about 500 MB while
 * the owner's queue answered them one after another anyway.
 *
 * A slot is freed when the response closes (finished, or the connection dropped). A waiting
 * request whose connection has closed is dropped from the line without being run.
 */

/**
 * @param {number} limit  requests inside at once; 0 or less: no limit
 * @returns {{ admit: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, run: () => void) => void, stats: () => { active: number, waiting: number } }}
 */
export function createAdmission(limit) {
  let active = 0;
  /** @type {(() => void)[]} */
  const line = [];
  let head = 0;
  const next = () => {
    while (active < limit && head < line.length) {
      const start = line[head];
      line[head++] = undefined;
      start();
    }
    // Compact the line once its consumed front is large.
    if (head > 1024 && head * 2 > line.length) {
      line.splice(0, head);
      head = 0;
    }
  };
  return {
    admit(req, res, run) {
      if (!(limit > 0)) {
        run();
        return;
      }
      const start = () => {
        if (res.destroyed || res.writableEnded || req.socket?.destroyed) return;
        active++;
        let released = false;
        res.once('close', () => {
          if (released) return;
          released = true;
          active--;
          next();
        });
        run();
      };
      if (active < limit && head === line.length) start();
      else line.push(start);
    },
    stats: () => ({ active, waiting: line.length - head }),
  };
}
