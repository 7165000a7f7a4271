/**
 * A fresh client address per call, random per test process: limits are per address, and the
 * shared Redis of a PostgreSQL run keeps a bucket for 15 minutes, so a fixed sequence would meet
 * another run's (or the other project's) spent buckets.
 */
const NET_A = rnd();
const NET_B = rnd();
let ipSeq = 0;
function rnd() {
  return Math.floor(Math.random() * 254) + 1;
}
export function freshIp(): string {
  ipSeq++;
  return `172.${NET_A}.${(NET_B + Math.floor(ipSeq / 250)) % 256}.${(ipSeq % 250) + 1}`;
}
