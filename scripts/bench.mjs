// The body of scripts/bench (see there).
import { startWorker, ingest, corpusDocuments } from '../tests/worker/harness.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const REQUESTS = option('--requests', 300);
const CONCURRENCY = option('--concurrency', 8);
const ROUNDS = option('--rounds', 5);
const LOAD = args.includes('--load');
const CLIENTS = option('--clients', 50);
const SECONDS = option('--seconds', 30);
const LIMIT = LOAD ? option('--limit', 20) : 5;

const worker = await startWorker({ vars: { RATE_LIMIT: String(LIMIT) } });
const ask = (question, ip, accept = 'application/json') => fetch(`${worker.url}/ask`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'cf-connecting-ip': ip, accept },
  body: JSON.stringify({ question }),
});
// Every request but the rate-limited ones comes from its own client, so the
// limit never interferes; emoji make questions distinct without changing terms.
let n = 0;
const freshIp = () => { n += 1; return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`; };
const marker = (i) => [...i.toString(4)].map((d) => ['🟥', '🟧', '🟨', '🟩'][d]).join('');

if (LOAD) {
  await load();
  await worker.stop();
  process.exit(0);
}

/** Sends `count` requests, CONCURRENCY at a time, adding each one's latency
 * (and time to the first chunk of its body: what a streaming client sees
 * first) to `row`. */
async function measure(row, count) {
  let sent = 0;
  const lane = async () => {
    while (sent < count) {
      sent += 1;
      const t = performance.now();
      const res = await row.request(row.next++);
      let first;
      for await (const _chunk of res.body) first ??= performance.now() - t;
      row.times.push(performance.now() - t);
      row.firsts.push(first ?? row.times.at(-1));
      if (res.status !== row.expect) row.wrong += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

const pick = (list, q) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(q * list.length))];

try {
  await ingest(worker.url, corpusDocuments());
  const cached = 'How much does the Dedicated Desk plan cost?';
  await ask(cached, freshIp());
  const limited = '203.0.113.99';
  for (let i = 0; i < LIMIT; i++) await ask(cached, limited);
  const row = (label, expect, request) => ({ label, expect, request, next: 0, times: [], firsts: [], wrong: 0 });
  const rows = [
    row('trivial route (404 JSON)', 404, () => fetch(`${worker.url}/nope`)),
    row('cache hit', 200, () => ask(cached, freshIp())),
    row('rate-limited refusal (429)', 429, () => ask(cached, limited)),
    row('uncached local answer', 200, (i) => ask(`${cached} ${marker(i)}`, freshIp())),
    row('uncached, streamed (SSE)', 200, (i) => ask(`${cached} ${marker(REQUESTS + i)}`, freshIp(), 'text/event-stream')),
  ];
  // Warm-up, then the rows in interleaved rounds: whatever else the machine
  // does meanwhile falls on every row alike, not on whichever ran then.
  await measure(row('warm-up', 404, () => fetch(`${worker.url}/nope`)), REQUESTS / 2);
  for (let round = 0; round < ROUNDS; round++) {
    for (const r of rows) await measure(r, Math.ceil(REQUESTS / ROUNDS));
  }
  const base = { p50: pick(rows[0].times, 0.5), p99: pick(rows[0].times, 0.99) };
  console.log(`${rows[0].times.length} requests per row in ${ROUNDS} interleaved rounds, ${CONCURRENCY} concurrent, local engine under workerd (wrangler dev)\n`);
  console.log('| request | p50 ms | p99 ms | p50 / trivial | p99 / trivial | first byte p50 ms |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    const p50 = pick(r.times, 0.5);
    const p99 = pick(r.times, 0.99);
    console.log(`| ${r.label} | ${p50.toFixed(1)} | ${p99.toFixed(1)} | ${(p50 / base.p50).toFixed(2)} | ${(p99 / base.p99).toFixed(2)} | ${pick(r.firsts, 0.5).toFixed(1)} |${r.wrong ? ` (${r.wrong} unexpected statuses)` : ''}`);
  }
} finally {
  await worker.stop();
}

/** --load: CLIENTS clients, each its own IP, asking in a loop for SECONDS. */
async function load() {
  await ingest(worker.url, corpusDocuments());
  const questions = ['How much does the Dedicated Desk plan cost?', 'Where can I park my car?', 'How long is security camera footage kept?'];
  const deadline = performance.now() + SECONDS * 1000;
  const times = [];
  const statuses = {};
  const admittedPerClient = [];
  const client = async (c) => {
    const ip = `198.18.${c >> 8}.${c & 255}`;
    let admitted = 0;
    let i = 0;
    while (performance.now() < deadline) {
      const t = performance.now();
      const res = await ask(`${questions[i % questions.length]} ${marker(c * 1000 + i)}`, ip);
      await res.arrayBuffer();
      times.push(performance.now() - t);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      admitted += res.status === 200 ? 1 : 0;
      i += 1;
    }
    admittedPerClient.push(admitted);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  const elapsed = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const pick = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  const fiveXX = Object.entries(statuses).filter(([s]) => s >= 500).reduce((a, [, n]) => a + n, 0);
  const exact = admittedPerClient.every((n) => n === LIMIT);
  console.log(`load: ${CLIENTS} clients for ${SECONDS} s, rate limit ${LIMIT} per client, local engine under workerd`);
  console.log(`  requests ${times.length}, ${(times.length / elapsed).toFixed(1)} per second`);
  console.log(`  latency p50 ${pick(0.5).toFixed(1)} ms, p99 ${pick(0.99).toFixed(1)} ms`);
  console.log(`  statuses ${JSON.stringify(statuses)}; 5xx: ${fiveXX}`);
  console.log(`  every client got exactly its limit (${LIMIT} admitted): ${exact ? 'yes' : `no: ${JSON.stringify(admittedPerClient)}`}`);
}
