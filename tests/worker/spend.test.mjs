// The daily spend cap under workerd: one conditional D1 statement reserves each
// request's upper bound, so concurrency cannot overspend; settling charges usage
// once; a cached answer is still served when the budget is gone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, ingest, ask, corpusDocuments, d1, eventually, WORKERS_AI, ADMIN_TOKEN } from './harness.mjs';

const USD_PER_NEURON = 0.011 / 1000;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const ledger = async (w) => (await fetch(`${w.url}/admin/spend`, { headers: admin })).json();
let bound;
const started = [];

let ingestCost;

/** A Workers AI worker whose cap is its corpus ingest (embedding is spend too)
 * plus `reservations` request bounds plus `extra` neurons, every client allowed
 * the whole cap unless `vars` says otherwise. */
async function workerWithCap(reservations, vars = {}, extra = 0) {
  const cap = ((ingestCost + reservations * bound + extra) * USD_PER_NEURON).toFixed(9);
  const w = await startWorker({ ...WORKERS_AI, vars: { DAILY_CAP_USD: cap, AI_TIMEOUT_MS: '10000', DAILY_CLIENT_SHARE: '1', ...vars } });
  started.push(w);
  await ingest(w.url, corpusDocuments());
  return w;
}

before(async () => {
  const probe = await startWorker({ ...WORKERS_AI });
  await ingest(probe.url, corpusDocuments());
  ({ requestBoundNeurons: bound, ingestNeurons: ingestCost } = await ledger(probe));
  await probe.stop();
  assert.ok(bound > 0);
  assert.ok(ingestCost > 0, 'embedding the corpus is charged to the day');
});
after(() => Promise.all(started.map((w) => w.stop())));

// Distinct, uncached questions: the markers differ, the words do not.
const marker = (i) => [...i.toString(4).padStart(4, '0')].map((d) => ['🟥', '🟧', '🟨', '🟩'][d]).join('');

test('100 concurrent uncached requests against a cap of 7 reservations: exactly 7 proceed', async () => {
  const w = await workerWithCap(7.5);
  const { capNeurons } = await ledger(w);
  let sampling = true;
  const samples = [];
  const sampler = (async () => {
    while (sampling) {
      const l = await ledger(w);
      samples.push(l.reservedNeurons + l.spentNeurons);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const results = await Promise.all(
    // 🦥: each admitted request holds its reservation for 8 s, so all 100 meet the cap.
    Array.from({ length: 100 }, (_, i) => ask(w.url, `How much does the Dedicated Desk plan cost? 🦥${marker(i)}`)),
  );
  sampling = false;
  await sampler;
  const proceeded = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 503);
  assert.equal(proceeded.length, 7);
  assert.equal(refused.length, 93);
  assert.ok(refused.every((r) => r.body.error.code === 'budget_exhausted'));
  assert.ok(samples.length > 3, `sampled ${samples.length} times`);
  assert.ok(samples.every((s) => s <= capNeurons + 1e-6), `max ${Math.max(...samples)} > cap ${capNeurons}`);
  const after = await ledger(w);
  assert.equal(after.reservedNeurons, 0, 'every reservation was settled');
  assert.equal(after.requests, 7);
  const charged = proceeded.reduce((sum, r) => sum + r.body.cost.neurons, 0);
  assert.ok(Math.abs(after.ingestNeurons - ingestCost) < 1e-6, 'the same corpus costs the same to embed');
  assert.ok(Math.abs(after.spentNeurons - after.ingestNeurons - charged) < 0.01,
    `spent ${after.spentNeurons} = the ingest ${after.ingestNeurons} + the 7 answers' usage ${charged}`);
});

test('a cache hit makes no model call and no reservation, even with the budget gone', async () => {
  // Room for one reservation, and 10 neurons: less than the first answer will spend.
  const w = await workerWithCap(1, {}, 10);
  const first = await ask(w.url, 'How much does the Dedicated Desk plan cost?');
  assert.equal(first.body.status, 'answered');
  const refused = await ask(w.url, 'How long is security camera footage kept?');
  assert.equal(refused.status, 503, 'the cap has no room for a second request');
  const before = await ledger(w);
  const hit = await ask(w.url, 'how much does the dedicated desk plan cost');
  assert.equal(hit.status, 200);
  assert.equal(hit.body.cache.hit, true);
  assert.deepEqual(hit.body.cost, { neurons: 0, usd: 0, calls: 0 });
  const after = await ledger(w);
  assert.deepEqual([after.requests, after.spentNeurons, after.reservedNeurons], [before.requests, before.spentNeurons, 0]);
});

test('one client cannot spend past its share of the cap; another still can', async () => {
  // The share has room for one reservation (and the first's spend), not two.
  const share = ((1.5 * bound) / (ingestCost + 4 * bound)).toFixed(6);
  const shared = await workerWithCap(4, { DAILY_CLIENT_SHARE: share });
  const { capNeurons, clientCapNeurons } = await ledger(shared);
  assert.ok(Math.abs(clientCapNeurons - capNeurons * Number(share)) < 1e-6);
  const from = (ip) => ({ 'cf-connecting-ip': ip });
  // 🦥: both hold their reservations at once.
  const [a1, a2] = await Promise.all([1, 2].map((i) => ask(shared.url, `How much does the Dedicated Desk plan cost? 🦥${marker(i)}`, {}, from('203.0.113.1'))));
  assert.deepEqual([a1.status, a2.status].sort(), [200, 503]);
  assert.equal([a1, a2].find((r) => r.status === 503).body.error.code, 'budget_exhausted');
  const b = await ask(shared.url, 'How much does the Dedicated Desk plan cost?', {}, from('203.0.113.2'));
  assert.equal(b.status, 200, 'another client still has its share');
});

test('a client that hangs up mid-answer still has its reservation settled, its answer cached and its request audited', async () => {
  const w = started[0];
  const before = await ledger(w);
  const rows = () => d1(w.persist, 'SELECT count(*) AS n FROM audit_log')[0].n;
  const rowsBefore = rows();
  const question = `How much does the Dedicated Desk plan cost? 🦥${marker(77)}`;
  const hangUp = new AbortController();
  const pending = fetch(`${w.url}/ask`, {
    method: 'POST', signal: hangUp.signal, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question }),
  });
  await new Promise((r) => setTimeout(r, 1000));
  hangUp.abort();
  await assert.rejects(pending, { name: 'AbortError' });
  // 🦥 holds the answer for 8 s; the request runs on without its client.
  await eventually(async () => {
    const l = await ledger(w);
    assert.equal(l.reservedNeurons, before.reservedNeurons, 'settled');
    assert.equal(l.requests, before.requests + 1);
    assert.ok(l.spentNeurons > before.spentNeurons, 'charged what it used');
    assert.equal(rows(), rowsBefore + 1, 'audited');
  }, 20000);
  assert.equal((await ask(w.url, question)).body.cache.hit, true, 'cached');
});

test('with BUDGET_FALLBACK = local, an exhausted budget answers with the zero-cost local engine', async () => {
  const w = await workerWithCap(0.5, { BUDGET_FALLBACK: 'local' });
  const { status, body } = await ask(w.url, 'How much does the Dedicated Desk plan cost?');
  assert.equal(status, 200);
  assert.equal(body.status, 'answered');
  assert.deepEqual(body.engine, { ai: 'local', index: 'fts-only' });
  assert.match(body.stages.find((s) => s.name === 'spend').detail, /answered by the zero-cost local engine/);
  assert.equal(body.cost.calls, 0);
  assert.equal((await ask(w.url, 'How much does the Dedicated Desk plan cost?')).body.cache.hit, false, 'a fallback answer is not cached as the paid engine\'s');
});

test('releasing a settled request again charges nothing; a stuck one is released once', async () => {
  const w = started[0];
  const before = await ledger(w);
  const [settled] = d1(w.persist, 'SELECT request_id FROM spend_charges WHERE settled_at IS NOT NULL LIMIT 1');
  const release = (requestId) => fetch(`${w.url}/admin/spend/release`, {
    method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ requestId }),
  }).then((r) => r.json());
  assert.equal((await release(settled.request_id)).released, false);
  assert.deepEqual(await ledger(w), before, 'a retried settle does not charge twice');

  d1(w.persist, `INSERT INTO spend_charges (request_id, day, reserved) VALUES ('stuck', '${before.day}', 100); `
    + `UPDATE spend_days SET reserved = reserved + 100 WHERE day = '${before.day}'`);
  assert.equal((await release('stuck')).released, true);
  assert.equal((await release('stuck')).released, false);
  const after = await ledger(w);
  assert.equal(after.reservedNeurons, before.reservedNeurons);
  assert.ok(Math.abs(after.spentNeurons - (before.spentNeurons + 100)) < 1e-6, 'charged its reservation once');
});

test('D1 failing at settle: the answer stands, the reservation waits, release recovers it', async () => {
  const w = started[0];
  const before = await ledger(w);
  // 🦥: the generator answers after 8 s, long after the table is gone.
  const pending = ask(w.url, `How much does the Dedicated Desk plan cost? 🦥${marker(999)}`);
  await new Promise((r) => setTimeout(r, 1000));
  d1(w.persist, 'ALTER TABLE spend_charges RENAME TO spend_charges_away');
  const { status, body } = await pending;
  assert.equal(status, 200, 'the answer is served though its settle failed');
  d1(w.persist, 'ALTER TABLE spend_charges_away RENAME TO spend_charges');
  const stuck = await ledger(w);
  assert.equal(stuck.reservedNeurons, before.reservedNeurons + bound, 'the reservation waits, visible in the ledger');
  const released = await fetch(`${w.url}/admin/spend/release`, {
    method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ requestId: body.requestId }),
  }).then((r) => r.json());
  assert.equal(released.released, true);
  assert.equal((await ledger(w)).reservedNeurons, before.reservedNeurons);
});
