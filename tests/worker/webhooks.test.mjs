// Escalations under workerd, to a local receiver that checks each signature
// with the README's verifier: a review item (when queued, and at its tenth
// ask), an audit break, a stale ingest, a spend alarm (Slack format); a
// receiver that is down gets its delivery from the cron's retry; a slow one
// does not slow /ask.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, ingest, ask, corpusDocuments, d1, eventually, runCron, WORKERS_AI, ADMIN_TOKEN } from './harness.mjs';
import Ajv2020 from 'ajv/dist/2020.js';
import { startReceiver } from './fake-webhook.mjs';

const SECRET = 'test-escalation-secret';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'cf-connecting-ip': '203.0.113.77' };
const PARKING = 'Where can I park my car?';
let receiver;
let worker;

before(async () => {
  receiver = await startReceiver(SECRET);
  worker = await startWorker({
    vars: { REVIEW_INBOX: 'on', ESCALATION_WEBHOOK_URL: receiver.url, ESCALATION_WEBHOOK_SECRET: SECRET, ESCALATION_TIMEOUT_MS: '2000' },
  });
  await ingest(worker.url, corpusDocuments());
});
after(async () => {
  await worker?.stop();
  await receiver?.stop();
});

const deliveryRow = (id) => d1(worker.persist, `SELECT attempts, delivered_at IS NOT NULL AS delivered, last_error FROM webhook_deliveries WHERE id = '${id}'`)[0];

test('a refused question reaches the hook signed; a hook that is down gets it from the cron; again at the tenth ask', async () => {
  receiver.fail(1);
  const refused = await ask(worker.url, PARKING, {}, admin);
  assert.equal(refused.body.status, 'refused');
  const first = await eventually(() => {
    const [d] = receiver.of('review.item');
    assert.ok(d);
    return d;
  });
  assert.equal(first.status, 500);
  const id = first.headers['groundgate-delivery'];
  await eventually(() => assert.deepEqual(deliveryRow(id), { attempts: 1, delivered: 0, last_error: 'HTTP 500' }));

  assert.equal(await runCron(worker.url), 200);
  const retried = await eventually(() => {
    const d = receiver.of('review.item')[1];
    assert.ok(d);
    return d;
  });
  assert.equal(retried.headers['groundgate-delivery'], id, 'the same delivery, tried again');
  assert.equal(retried.raw, first.raw, 'the same body, signed afresh');
  assert.deepEqual([retried.verified, retried.forged, retried.status], [true, false, 204]);
  const [item] = d1(worker.persist, `SELECT id FROM review_queue WHERE question = '${PARKING}'`);
  assert.equal(retried.body.schema, 'groundgate.escalation/1');
  assert.equal(retried.body.id, id);
  assert.deepEqual(retried.body.data, {
    item: item.id, count: 1, question: PARKING, reason: refused.body.reason, scope: 'shared', link: `${worker.url}/operator.html#item=${item.id}`,
  });
  assert.ok(!retried.raw.includes('203.0.113.77'), 'no IP goes out');
  await eventually(() => assert.equal(deliveryRow(id).delivered, 1));

  for (let i = 2; i <= 10; i += 1) await ask(worker.url, PARKING, {}, admin);
  const tenth = await eventually(() => {
    const d = receiver.of('review.item').find((x) => x.body.data.count === 10);
    assert.ok(d);
    return d;
  });
  assert.equal(tenth.verified, true);
  assert.equal(receiver.of('review.item').length, 3, 'asks 2 to 9 sent nothing');
  await runCron(worker.url);
  assert.equal(receiver.of('review.item').length, 3, 'a delivered escalation is not sent again');
});

test('a broken audit chain and a stale ingest reach the hook, each once', async () => {
  d1(worker.persist, "UPDATE audit_log SET hash = (CASE WHEN hash LIKE 'ff%' THEN '00' ELSE 'ff' END) || substr(hash, 3) WHERE seq = 2");
  for (let i = 0; i < 2; i += 1) {
    const verified = await (await fetch(`${worker.url}/admin/audit/verify`, { headers: admin })).json();
    assert.equal(verified.ok, false);
  }
  const broken = await eventually(() => {
    const [d] = receiver.of('audit.broken');
    assert.ok(d);
    return d;
  });
  assert.deepEqual([broken.verified, broken.body.data.firstBadRow], [true, 2]);

  const post = (path, body) => fetch(`${worker.url}${path}`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const id = 'c'.repeat(32);
  assert.equal((await post('/admin/ingest/begin', { ingest: id, documents: [] })).status, 200);
  // Another commit moves the corpus on.
  await ingest(worker.url, [{ name: 'extra.md', text: '# Extra\n\n## Part\n\nAn extra page.' }], { complete: false, vocabulary: null });
  assert.equal((await post(`/admin/ingest/${id}/commit`, {})).status, 409);
  const stale = await eventually(() => {
    const [d] = receiver.of('ingest.failed');
    assert.ok(d);
    return d;
  });
  assert.deepEqual([stale.verified, stale.body.data.ingest, stale.body.data.code], [true, id, 'ingest_stale']);
  assert.equal((await post(`/admin/ingest/${id}/commit`, {})).status, 404, 'an unknown ingest is no escalation');
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual([receiver.of('audit.broken').length, receiver.of('ingest.failed').length], [1, 1]);
});

test('a slow hook does not slow /ask', async () => {
  receiver.slow(6000);
  const before = receiver.deliveries.length;
  const started = performance.now();
  const refused = await ask(worker.url, 'Where can I charge my electric scooter overnight?', {}, admin);
  const elapsed = performance.now() - started;
  assert.equal(refused.body.status, 'refused');
  await eventually(() => assert.equal(receiver.deliveries.length, before + 1), 8000);
  receiver.slow(0);
  console.log(`# /ask that queued a review item, hook answering in 6 s: ${elapsed.toFixed(0)} ms`);
  assert.ok(elapsed < 1500, `/ask took ${elapsed} ms`);
  const last = "SELECT attempts, last_error FROM webhook_deliveries WHERE type = 'review.item' ORDER BY rowid DESC LIMIT 1";
  await eventually(() => assert.deepEqual(d1(worker.persist, last)[0], { attempts: 1, last_error: 'timeout' }, 'slower than its bound: a failed attempt, retried later'));
});

test('every JSON escalation sent validates against the webhook openapi.json describes', async () => {
  const doc = await (await fetch(`${worker.url}/openapi.json`)).json();
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, allErrors: true });
  ajv.addVocabulary(['openapi', 'info', 'tags', 'paths', 'components', 'servers', 'security', 'webhooks', 'externalDocs', 'jsonSchemaDialect', 'example']);
  ajv.addSchema(doc, 'doc');
  const operation = doc.webhooks.escalation.post;
  const body = ajv.getSchema('doc#/components/schemas/Escalation');
  const types = new Set();
  for (const d of receiver.deliveries) {
    assert.ok(body(d.body), `${d.raw}: ${JSON.stringify(body.errors)}`);
    for (const { name, schema } of operation.parameters) {
      assert.ok(ajv.validate(schema, d.headers[name.toLowerCase()]), `${name}: ${d.headers[name.toLowerCase()]}`);
    }
    types.add(d.body.type);
  }
  assert.deepEqual([...types].sort(), ['audit.broken', 'ingest.failed', 'review.item']);
});

/** A Workers AI worker (the doubles) posting escalations to a receiver of its own. */
async function paidWorker(vars) {
  const hook = await startReceiver(SECRET);
  const w = await startWorker({ ...WORKERS_AI, vars: { ESCALATION_WEBHOOK_URL: hook.url, ESCALATION_WEBHOOK_SECRET: SECRET, ...vars } });
  await ingest(w.url, corpusDocuments());
  return { w, hook, stop: async () => { await w.stop(); await hook.stop(); } };
}

const alarms = (hook, count) => eventually(async () => {
  const sent = hook.of('spend.alarm');
  assert.equal(sent.length, count);
  await new Promise((r) => setTimeout(r, 300)); // and no more come
  assert.equal(hook.of('spend.alarm').length, count);
  return sent;
});

test('the day\'s cap reached goes out once a day, as a Slack message when asked', async () => {
  const { w, hook, stop } = await paidWorker({ DAILY_CAP_USD: '0.000001', ESCALATION_FORMAT: 'slack' });
  try {
    for (let i = 0; i < 2; i += 1) {
      assert.equal((await ask(w.url, `How much does the Dedicated Desk plan cost? ${i}`, {}, admin)).status, 503);
    }
    const [alarm] = await alarms(hook, 1);
    assert.equal(alarm.verified, true);
    assert.match(alarm.body.text, /daily cap of \d+ neurons is reached/);
    assert.equal(alarm.body.blocks[0].type, 'section');
  } finally {
    await stop();
  }
});

test('a client\'s share used up goes out once a day per client, and never says which client', async () => {
  const { w, hook, stop } = await paidWorker({ DAILY_CLIENT_SHARE: '0.01' });
  try {
    const client = (ip) => ({ 'cf-connecting-ip': ip });
    for (const [i, ip] of ['192.0.2.10', '192.0.2.10', '192.0.2.11'].entries()) {
      const res = await ask(w.url, `How much does the Dedicated Desk plan cost? ${i}`, {}, client(ip));
      assert.equal(res.body.error?.code, 'budget_exhausted');
    }
    const sent = await alarms(hook, 2);
    for (const d of sent) {
      assert.equal(d.verified, true);
      assert.equal(d.body.data.alarm, 'share_exhausted');
      assert.ok(!/192\.0\.2/.test(d.raw), d.raw);
      assert.ok(!/[0-9a-f]{40}/.test(d.raw), `no keyed hash in the body: ${d.raw}`);
    }
  } finally {
    await stop();
  }
});
