// A failing dependency gets a defined outcome: D1 failing during rate limiting
// fails closed (503, never a 500 or a panic), nothing is cached, and the refusal
// is still counted where D1 is up.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, ingest, ask, askEvents, corpusDocuments, d1, eventually } from './harness.mjs';

let worker;
before(async () => {
  worker = await startWorker();
  await ingest(worker.url, corpusDocuments());
});
after(() => worker?.stop());

test('D1 failing during rate limiting fails closed, uncached, counted', async () => {
  const rowsBefore = d1(worker.persist, 'SELECT count(*) AS n FROM audit_log');
  d1(worker.persist, 'ALTER TABLE rate_limits RENAME TO rate_limits_away');
  let response;
  try {
    response = await ask(worker.url, 'How much does the Dedicated Desk plan cost?');
  } finally {
    d1(worker.persist, 'ALTER TABLE rate_limits_away RENAME TO rate_limits');
  }
  const { status, body } = response;
  assert.equal(status, 503);
  assert.equal(body.error.code, 'unavailable');
  assert.ok(!JSON.stringify(body).includes('rate_limits'), 'D1 detail stays in the log');
  // Refused before admission: counted under its code, not a row of its own.
  await eventually(() => assert.deepEqual(d1(worker.persist, "SELECT sum(count) AS n FROM audit_rejected WHERE code = 'unavailable'"), [{ n: 1 }]), 10_000);
  assert.deepEqual(d1(worker.persist, 'SELECT count(*) AS n FROM audit_log'), rowsBefore);
  assert.deepEqual(d1(worker.persist, 'SELECT count(*) AS cached FROM answer_cache'), [{ cached: 0 }]);
  assert.equal((await ask(worker.url, 'How much does the Dedicated Desk plan cost?')).status, 200, 'recovers when D1 does');
});

test('D1 failing for the corpus is a 503, not a 500', async () => {
  d1(worker.persist, 'ALTER TABLE passages RENAME TO passages_away');
  const { status, body } = await ask(worker.url, 'How long is security camera footage kept?');
  assert.equal(status, 503);
  assert.equal(body.error.code, 'unavailable');
  d1(worker.persist, 'ALTER TABLE passages_away RENAME TO passages');
});

test('D1 failing once the stream has begun ends it with an error event, no detail', async () => {
  d1(worker.persist, 'ALTER TABLE passages RENAME TO passages_away');
  const { status, events } = await askEvents(worker.url, 'How long is security camera footage kept? (streamed)');
  d1(worker.persist, 'ALTER TABLE passages_away RENAME TO passages');
  assert.equal(status, 200, 'the guards had passed: the stream was open');
  const last = events.at(-1);
  assert.equal(last.event, 'error');
  assert.equal(last.data.error.code, 'unavailable');
  assert.ok(!JSON.stringify(last.data).includes('passages'), 'D1 detail stays in the log');
  assert.ok(events.slice(0, -1).every((e) => e.event === 'stage'), 'stages, then the error, and no result');
});
