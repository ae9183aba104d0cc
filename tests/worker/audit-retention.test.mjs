// Audit retention under workerd, and a chain too long for one call: after a gap longer than the retention the
// cron prunes every old row but the newest sealed one, behind a checkpoint;
// the chain still verifies, a pruned request's id answers 410 audit_pruned,
// and new rows continue the sequence, even from a log pruning once emptied.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startWorker, ingest, ask, corpusDocuments, d1, eventually, ROOT, ADMIN_TOKEN, runCron } from './harness.mjs';

let worker;
before(async () => {
  worker = await startWorker({ vars: { AUDIT_RETENTION_DAYS: '30' } });
  await ingest(worker.url, corpusDocuments());
});
after(() => worker?.stop());

const DAY_MS = 86_400_000;
const cron = () => runCron(worker.url);
const verify = () => fetch(`${worker.url}/admin/audit/verify`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) => r.json());
const proof = async (id) => {
  const res = await fetch(`${worker.url}/audit/${id}`);
  return { status: res.status, body: await res.json() };
};
const seqs = () => d1(worker.persist, 'SELECT seq FROM audit_log ORDER BY seq').map((r) => r.seq);

test('after a 31-day gap: the newest row stays, old ids are pruned, the chain verifies and goes on', async () => {
  const ids = [];
  for (const question of ['How much does the Dedicated Desk plan cost?', 'Where can I park my car?', 'Is there a printer?']) {
    ids.push((await ask(worker.url, question)).body.requestId);
  }
  await eventually(() => assert.deepEqual(seqs(), [1, 2, 3]));
  assert.equal(await cron(), 200, 'seals');
  d1(worker.persist, `UPDATE audit_log SET created_at = created_at - ${31 * DAY_MS}`);
  assert.equal(await cron(), 200, 'prunes');

  assert.deepEqual(seqs(), [3], 'the newest sealed row is kept');
  assert.deepEqual(await verify(), { ok: true, rows: 1 });
  // The rows were moved back in time rather than the clock forward, so the
  // ids their requests would have carried are moved back the same way.
  const issuedEarlier = (id) => (parseInt(id.slice(0, 12), 16) - 31 * DAY_MS).toString(16).padStart(12, '0') + id.slice(12);
  for (const id of ids.slice(0, 2).map(issuedEarlier)) {
    const { status, body } = await proof(id);
    assert.deepEqual([status, body.error.code], [410, 'audit_pruned'], id);
  }
  assert.equal((await proof(ids[2])).body.seq, 3, 'the kept row still proves its request');
  const never = `${'0'.repeat(12)}${'1'.repeat(20)}`;
  assert.equal((await proof(never)).status, 410, 'an id issued before the pruned rows is past retention too');
  const future = `${'f'.repeat(12)}${'1'.repeat(20)}`;
  assert.equal((await proof(future)).status, 404, 'one issued after them is not known');

  const later = (await ask(worker.url, 'How much does the Dedicated Desk plan cost? Asked later.')).body.requestId;
  await eventually(() => assert.deepEqual(seqs(), [3, 4]));
  assert.deepEqual(await verify(), { ok: true, rows: 2 });
  assert.equal((await proof(later)).body.seq, 4);
});

test('a log that pruning once emptied goes on from its checkpoint: no seq is used twice', async () => {
  assert.equal(await cron(), 200, 'seals');
  const [last] = d1(worker.persist, 'SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
  d1(worker.persist, `UPDATE audit_checkpoint SET seq = ${last.seq}, hash = '${last.hash}'`);
  d1(worker.persist, 'DELETE FROM audit_log');
  const id = (await ask(worker.url, 'Where can I park my car? Asked after the gap.')).body.requestId;
  await eventually(() => assert.deepEqual(seqs(), [last.seq + 1]));
  assert.deepEqual(await verify(), { ok: true, rows: 1 });
  const { status, body } = await proof(id);
  assert.deepEqual([status, body.seq], [200, last.seq + 1]);
});

test('a backlog is sealed across cron runs and a long chain verified across calls, each within 50 queries', async () => {
  assert.equal(await cron(), 200);
  const unsealed = () => d1(worker.persist, 'SELECT count(*) AS n FROM audit_log WHERE hash IS NULL')[0].n;
  assert.equal(unsealed(), 0);
  const [{ last }] = d1(worker.persist, 'SELECT max(seq) AS last FROM audit_log');
  d1(worker.persist, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500)
    INSERT INTO audit_log (seq, body, created_at) SELECT ${last} + i, '{"event":"filler","n":' || i || '}', ${Date.now()} FROM n`);
  assert.equal(await cron(), 200);
  assert.equal(unsealed(), 2500 - 8 * 200, 'one cron run seals eight rounds of 200, the rest waits');
  const first = await verify();
  assert.equal(first.ok, true);
  assert.ok(first.next && first.rows < 2501, `one call walks part of the chain: ${JSON.stringify(first).slice(0, 200)}`);
  const script = () => spawnSync(join(ROOT, 'scripts', 'verify-audit'), ['--url', worker.url], { env: { ...process.env, ADMIN_TOKEN }, encoding: 'utf8' });
  assert.equal(script().stdout, 'OK: 2501 rows, every row chained to the one before\n');
  // A row only a later call reads is still checked.
  d1(worker.persist, `UPDATE audit_log SET body = '{"event":"edited"}' WHERE seq = ${last + 2400}`);
  assert.equal(script().stdout, `BROKEN at row ${last + 2400}: hash does not match the row's body\n`);
  const bad = await fetch(`${worker.url}/admin/audit/verify?from=nonsense`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(bad.status, 400);
});
