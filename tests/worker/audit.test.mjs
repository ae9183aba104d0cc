// The audit log under workerd: one hash-chained record per admitted /ask,
// appended without forking under concurrency; requests refused before admission
// counted per window and rolled into one row when it ends; tampering is found at
// the exact row.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startWorker, ingest, ask, corpusDocuments, d1, eventually, ROOT, ADMIN_TOKEN, runCron } from './harness.mjs';

let worker;
before(async () => {
  worker = await startWorker({ vars: { IP_HASH_KEY: 'audit-key' } });
  await ingest(worker.url, corpusDocuments());
});
after(() => worker?.stop());

const verify = () => new Promise((resolve) => {
  const child = spawn(join(ROOT, 'scripts', 'verify-audit'), ['--url', worker.url], { env: { ...process.env, ADMIN_TOKEN } });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.on('close', (code) => resolve({ code, out }));
});

test('every admitted /ask is recorded once, a rejected one counted, with hashes instead of IPs and questions', async () => {
  await ask(worker.url, 'How much does the Dedicated Desk plan cost?', {}, { 'cf-connecting-ip': '192.0.2.7' });
  await ask(worker.url, 'Where can I park my car?');
  await fetch(`${worker.url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"question": ""}' });
  const rows = await eventually(() => {
    const rows = d1(worker.persist, 'SELECT seq, body FROM audit_log ORDER BY seq');
    assert.deepEqual(rows.map((r) => r.seq), [1, 2]);
    return rows;
  });
  const [answered, refused] = rows.map((r) => JSON.parse(r.body));
  assert.deepEqual([answered.outcome, refused.outcome, refused.reason], ['answered', 'refused', 'no_evidence']);
  assert.deepEqual(answered.passages, ['pricing-02']);
  assert.match(answered.clientKey, /^[0-9a-f]{64}$/);
  assert.match(answered.questionHash, /^[0-9a-f]{64}$/);
  assert.ok(!rows.some((r) => r.body.includes('192.0.2.7') || r.body.includes('Dedicated Desk plan cost')));
  assert.ok(answered.stages.includes('gate:passed'));
  // Written in a batch a few seconds after the refusal that opened it.
  await eventually(() => assert.deepEqual(d1(worker.persist, 'SELECT code, count FROM audit_rejected'), [{ code: 'bad_request', count: 1 }]), 10_000);

  // Once its window has ended (moved back an hour here), the cron rolls the
  // counter into one chained row.
  d1(worker.persist, 'UPDATE audit_rejected SET window_start = window_start - 3600');
  assert.equal(await runCron(worker.url), 200);
  const [rollUp] = d1(worker.persist, 'SELECT seq, body FROM audit_log WHERE seq = 3');
  assert.deepEqual(JSON.parse(rollUp.body).rejected, { bad_request: 1 });
  assert.deepEqual(d1(worker.persist, 'SELECT count(*) AS n FROM audit_rejected'), [{ n: 0 }]);
  assert.deepEqual(await verify(), { code: 0, out: 'OK: 3 rows, every row chained to the one before\n' });
});

test('40 concurrent requests append 40 rows and never fork the chain', async () => {
  await Promise.all(Array.from({ length: 40 }, (_, i) => ask(worker.url, `How long is security camera footage kept? ${'🟩'.repeat(i)}`, {}, { 'cf-connecting-ip': `192.0.2.${i}` })));
  const { code, out } = await eventually(async () => {
    const result = await verify();
    assert.match(result.out, /OK: 43 rows/);
    return result;
  });
  assert.equal(code, 0, out);
});

test('a tampered body, a tampered hash and a deleted row are each reported at their row', async () => {
  const [row5] = d1(worker.persist, 'SELECT body, hash FROM audit_log WHERE seq = 5');
  d1(worker.persist, "UPDATE audit_log SET body = replace(body, '\"outcome\":\"answered\"', '\"outcome\":\"refused\"') WHERE seq = 5");
  assert.notEqual(d1(worker.persist, 'SELECT body FROM audit_log WHERE seq = 5')[0].body, row5.body, 'the body was tampered with');
  assert.match((await verify()).out, /BROKEN at row 5: hash does not match the row's body/);
  d1(worker.persist, `UPDATE audit_log SET body = '${row5.body.replace(/'/g, "''")}' WHERE seq = 5`);
  assert.equal((await verify()).code, 0, 'restored');

  // A hash that already starts "ff" (one chain in 256) gets "00" instead: the
  // tamper must change the hash, whatever the run's timestamps made it.
  d1(worker.persist, "UPDATE audit_log SET hash = (CASE WHEN hash LIKE 'ff%' THEN '00' ELSE 'ff' END) || substr(hash, 3) WHERE seq = 9");
  assert.match((await verify()).out, /BROKEN at row 9: hash does not match the row's body/);
  d1(worker.persist, `UPDATE audit_log SET hash = (SELECT prev_hash FROM audit_log WHERE seq = 10) WHERE seq = 9`);
  assert.equal((await verify()).code, 0, 'restored');

  d1(worker.persist, 'DELETE FROM audit_log WHERE seq = 12');
  assert.match((await verify()).out, /BROKEN at row 13: row 12 is missing/);
});

test('a flood of 1000 rejected requests grows a counter, not the log, in a few D1 writes', async () => {
  const rows = () => d1(worker.persist, 'SELECT max(seq) AS last FROM audit_log')[0].last;
  const before = rows();
  // Every row the counter table writes, counted by the database itself.
  d1(worker.persist, `CREATE TABLE rejected_writes (n INTEGER);
    CREATE TRIGGER rejected_inserted AFTER INSERT ON audit_rejected BEGIN INSERT INTO rejected_writes VALUES (1); END;
    CREATE TRIGGER rejected_updated AFTER UPDATE ON audit_rejected BEGIN INSERT INTO rejected_writes VALUES (1); END;`);
  const bad = () => fetch(`${worker.url}/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"question": 7}' })
    .then((r) => r.status);
  for (let sent = 0; sent < 1000; sent += 50) {
    assert.deepEqual(new Set(await Promise.all(Array.from({ length: 50 }, bad))), new Set([400]));
  }
  await eventually(() => assert.deepEqual(d1(worker.persist, "SELECT sum(count) AS n FROM audit_rejected WHERE code = 'bad_request'"), [{ n: 1000 }]), 15_000);
  assert.equal(rows(), before);
  const [{ writes }] = d1(worker.persist, 'SELECT count(*) AS writes FROM rejected_writes');
  console.log(`# 1000 refused requests: ${writes} D1 row writes`);
  assert.ok(writes <= 10, `${writes} writes: one per batch of a few seconds, not one per request`);
});
