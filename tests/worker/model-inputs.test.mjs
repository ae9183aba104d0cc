// What Workers AI does with an input its model's schema rejects, under
// workerd: the double checks every input against the published schema
// (tests/doubles, validate) and throws the service's 5006 error; the worker
// refuses cleanly. And the optional AI Gateway: with AI_GATEWAY_ID set, every
// call carries gateway options the binding accepts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, ingest, ask, corpusDocuments, d1, eventually, WORKERS_AI, ADMIN_TOKEN } from './harness.mjs';

const Q = 'How much does the Dedicated Desk plan cost?';
// An embedding model named as the judge: not in the worker's catalog, so it
// is sent the plain chat request, whose `messages` its schema does not have.
const WRONG_JUDGE = '@cf/baai/bge-large-en-v1.5';
const ledger = async (w) => (await fetch(`${w.url}/admin/spend`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json();
const stageOf = (body, name) => body.stages.find((s) => s.name === name);

let misconfigured;
let gateway;
before(async () => {
  [misconfigured, gateway] = await Promise.all([
    startWorker({ ...WORKERS_AI, vars: { JUDGE_MODEL: WRONG_JUDGE, PRICES: JSON.stringify({ [WRONG_JUDGE]: [18582, 18582] }) } }),
    startWorker({ ...WORKERS_AI, vars: { AI_GATEWAY_ID: 'groundgate' } }),
  ]);
  for (const w of [misconfigured, gateway]) {
    const { status, body } = await ingest(w.url, corpusDocuments());
    assert.equal(status, 200, JSON.stringify(body));
  }
});
after(() => Promise.all([misconfigured?.stop(), gateway?.stop()]));

test('/health warns of a configured model the worker does not know', async () => {
  const health = await (await fetch(`${misconfigured.url}/health`)).json();
  assert.equal(health.warnings.length, 1, JSON.stringify(health.warnings));
  assert.match(health.warnings[0], new RegExp(`^judge model ${WRONG_JUDGE} is not a known model`));
  assert.deepEqual((await (await fetch(`${gateway.url}/health`)).json()).warnings, []);
});

test('an input the model rejects (5006) is refused model_unavailable: no reservation left, nothing cached', async () => {
  const before = await ledger(misconfigured);
  const { body } = await ask(misconfigured.url, Q);
  assert.equal(body.status, 'refused');
  assert.equal(body.reason, 'model_unavailable');
  assert.equal(body.answer, null);
  assert.match(stageOf(body, 'decompose').detail, /AiError: 5006: .*input validation failed/);
  assert.equal(stageOf(body, 'generate').status, 'passed', 'the generator, whose input fits, answered');
  await eventually(async () => {
    const settled = await ledger(misconfigured);
    assert.equal(settled.reservedNeurons, before.reservedNeurons, 'the reservation is settled');
    assert.ok(settled.spentNeurons > before.spentNeurons, 'the calls made are charged');
  });
  const again = await ask(misconfigured.url, Q);
  assert.equal(again.body.cache.hit, false);
  assert.equal(again.body.reason, 'model_unavailable');
  assert.deepEqual(d1(misconfigured.persist, 'SELECT count(*) AS cached FROM answer_cache'), [{ cached: 0 }]);
});

test('through the AI Gateway, every call passes options the binding accepts, and the answer is the same', async () => {
  const { body } = await ask(gateway.url, Q);
  assert.equal(body.status, 'answered', JSON.stringify(body.stages));
  assert.match(body.answer, /\$450 per month/);
  assert.equal(body.cost.calls, 3);
});
