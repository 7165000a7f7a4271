import dgram from 'node:dgram';

/**
 * A small authoritative DNS server on 127.0.0.1 (a free UDP port) for tests
 * that need a REAL DNS exchange: it parses the question of each query and
 * answers TXT records from an in-memory map. Unknown names answer NXDOMAIN,
 * known names asked for another type answer NOERROR without records, and
 * names marked with `failWith` answer that response code (e.g. 2 SERVFAIL).
 * Point the service at it with `DNS_RESOLVER=${server.address}`.
 */
export type DnsServer = {
  /** `127.0.0.1:<port>`, the form DNS_RESOLVER takes. */
  address: string;
  port: number;
  /** Replace the TXT records at `name` (each string one record; long ones are split into 255-byte pieces). */
  setTxt(name: string, records: string | string[]): void;
  remove(name: string): void;
  failWith(name: string, rcode: number): void;
  /** Names asked, in order (lower-cased). */
  queries: string[];
  close(): Promise<void>;
};

const TYPE_TXT = 16;
const CLASS_IN = 1;
const RCODE_NXDOMAIN = 3;
const RCODE_FORMERR = 1;

type Question = { name: string; type: number; cls: number; end: number };

function parseQuestion(msg: Buffer): Question | null {
  if (msg.length < 12 || msg.readUInt16BE(4) < 1) return null;
  const labels: string[] = [];
  let off = 12;
  for (;;) {
    if (off >= msg.length) return null;
    const len = msg[off];
    if (len === 0) {
      off += 1;
      break;
    }
    if (len > 63 || off + 1 + len > msg.length) return null; // no compression in a question we accept
    labels.push(msg.toString('latin1', off + 1, off + 1 + len));
    off += 1 + len;
  }
  if (off + 4 > msg.length) return null;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(off), cls: msg.readUInt16BE(off + 2), end: off + 4 };
}

/** TXT RDATA: one or more <length><bytes> character-strings. */
function txtRdata(record: string): Buffer {
  const bytes = Buffer.from(record, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i === 0 || i < bytes.length; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(parts);
}

function respond(query: Buffer, q: Question | null, rcode: number, records: string[]): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0); // id
  const qflags = query.readUInt16BE(2);
  // QR, the query's opcode, AA, the query's RD, RA, rcode
  header.writeUInt16BE(0x8000 | (qflags & 0x7800) | 0x0400 | (qflags & 0x0100) | 0x0080 | rcode, 2);
  header.writeUInt16BE(q ? 1 : 0, 4);
  header.writeUInt16BE(records.length, 6);
  const question = q ? query.subarray(12, q.end) : Buffer.alloc(0);
  const answers = records.map((r) => {
    const rdata = txtRdata(r);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // name: pointer to the question's name
    rr.writeUInt16BE(TYPE_TXT, 2);
    rr.writeUInt16BE(CLASS_IN, 4);
    rr.writeUInt32BE(60, 6); // ttl
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, question, ...answers]);
}

export async function startDnsServer(): Promise<DnsServer> {
  const txt = new Map<string, string[]>();
  const failures = new Map<string, number>();
  const queries: string[] = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    if (msg.length < 12 || msg[2] & 0x80) return; // not a query
    const q = parseQuestion(msg);
    let reply: Buffer;
    if (!q) reply = respond(msg, null, RCODE_FORMERR, []);
    else {
      queries.push(q.name);
      const failure = failures.get(q.name);
      const records = txt.get(q.name);
      if (failure !== undefined) reply = respond(msg, q, failure, []);
      else if (!records) reply = respond(msg, q, RCODE_NXDOMAIN, []);
      else reply = respond(msg, q, 0, q.type === TYPE_TXT && q.cls === CLASS_IN ? records : []);
    }
    socket.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => resolve());
  });
  const port = socket.address().port;
  const key = (name: string) => name.toLowerCase().replace(/\.$/, '');
  return {
    address: `127.0.0.1:${port}`,
    port,
    queries,
    setTxt: (name, records) => {
      failures.delete(key(name));
      txt.set(key(name), Array.isArray(records) ? records : [records]);
    },
    remove: (name) => {
      txt.delete(key(name));
      failures.delete(key(name));
    },
    failWith: (name, rcode) => failures.set(key(name), rcode),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
