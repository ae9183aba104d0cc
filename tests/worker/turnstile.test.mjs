// Turnstile under workerd against a local siteverify that behaves like the
// documented service: every outcome fails closed except a verified token.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { startWorker, ingest, ask, corpusDocuments, ADMIN_TOKEN } from './harness.mjs';
import { startFakeSiteverify, SECRETS } from './fake-siteverify.mjs';

let fake;
const workers = {};
const QUESTION = 'How much does the Dedicated Desk plan cost?';

/** A loopback port with nothing listening: siteverify "down". */
async function closedPort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

before(async () => {
  fake = await startFakeSiteverify();
  const base = { TURNSTILE_SITEVERIFY_URL: fake.url, TURNSTILE_TIMEOUT_MS: '1000' };
  const down = `http://127.0.0.1:${await closedPort()}/siteverify`;
  // One at a time: concurrent `wrangler dev` starts share the project's .wrangler folder.
  const plan = {
    pass: { ...base, TURNSTILE_SECRET: SECRETS.pass, TURNSTILE_ACTION: 'ask' },
    fail: { ...base, TURNSTILE_SECRET: SECRETS.fail },
    spent: { ...base, TURNSTILE_SECRET: SECRETS.spent },
    unreachable: { ...base, TURNSTILE_SECRET: SECRETS.pass, TURNSTILE_SITEVERIFY_URL: down },
    production: { ...base, ENVIRONMENT: 'production', IP_HASH_KEY: 'k' },
  };
  for (const [name, vars] of Object.entries(plan)) workers[name] = await startWorker({ vars });
  await ingest(workers.pass.url, corpusDocuments());
});
after(async () => {
  await Promise.all(Object.values(workers).map((w) => w.stop()));
  await fake?.stop();
});

test('1x secret: a fresh token passes and the answer is served', async () => {
  const { status, body } = await ask(workers.pass.url, QUESTION, { token: 'token-a' });
  assert.equal(status, 200);
  assert.equal(body.status, 'answered');
  const stage = body.stages.find((s) => s.name === 'turnstile');
  assert.deepEqual([stage.status, stage.detail], ['passed', 'siteverify: success']);
  const call = fake.calls.find((c) => c.response === 'token-a');
  assert.equal(call.secret, SECRETS.pass);
  assert.equal(call.contentType, 'application/x-www-form-urlencoded');
  assert.match(call.idempotency_key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('workspace creation and uploads need a token of their own, before any D1 work; the admin token needs none', async () => {
  const { url } = workers.pass;
  const create = (headers) => fetch(`${url}/workspaces`, { method: 'POST', headers: { 'cf-connecting-ip': '192.0.2.40', ...headers } });
  const refused = await create({});
  assert.deepEqual([refused.status, (await refused.json()).error.code], [403, 'turnstile_failed']);
  const made = await create({ 'cf-turnstile-response': 'ws-token-1' });
  assert.equal(made.status, 201);
  const { id, secret } = await made.json();
  assert.equal((await create({ 'cf-turnstile-response': 'ws-token-1' })).status, 403, 'a token is used once');
  const upload = (headers) => fetch(`${url}/workspaces/${id}/documents?name=ferry.md`, {
    method: 'POST', headers: { 'content-type': 'text/markdown', 'workspace-secret': secret, ...headers },
    body: '# Ferry\n\n## Timetable\n\nThe Larkport ferry leaves at 7:15 am.\n',
  });
  const unverified = await upload({});
  assert.deepEqual([unverified.status, (await unverified.json()).error.code], [403, 'turnstile_failed']);
  assert.equal((await upload({ 'cf-turnstile-response': 'ws-token-2' })).status, 200);
  assert.equal((await upload({ authorization: `Bearer ${ADMIN_TOKEN}` })).status, 200, 'the admin token is not verified');
  assert.equal((await create({ authorization: `Bearer ${ADMIN_TOKEN}` })).status, 201);
  assert.deepEqual(fake.calls.filter((c) => c.response?.startsWith('ws-token')).map((c) => c.response), ['ws-token-1', 'ws-token-1', 'ws-token-2']);
});

test('a token is single use: the second use is refused', async () => {
  assert.equal((await ask(workers.pass.url, QUESTION, { token: 'token-b' })).status, 200);
  const { status, body } = await ask(workers.pass.url, QUESTION, { token: 'token-b' });
  assert.equal(status, 403);
  assert.equal(body.error.code, 'turnstile_failed');
  assert.match(body.error.message, /timeout-or-duplicate/);
});

test('the client IP is sent as remoteip', async () => {
  await ask(workers.pass.url, QUESTION, { token: 'token-ip' }, { 'cf-connecting-ip': '203.0.113.7' });
  assert.equal(fake.calls.find((c) => c.response === 'token-ip').remoteip, '203.0.113.7');
});

test('internal-error is retried once with the same idempotency key', async () => {
  const { status } = await ask(workers.pass.url, QUESTION, { token: 'internal-error-once' });
  assert.equal(status, 200);
  const calls = fake.calls.filter((c) => c.response === 'internal-error-once');
  assert.equal(calls.length, 2);
  assert.equal(calls[0].idempotency_key, calls[1].idempotency_key);
});

test('2x secret: always fails', async () => {
  const { status, body } = await ask(workers.fail.url, QUESTION, { token: 'anything' });
  assert.equal(status, 403);
  assert.equal(body.error.code, 'turnstile_failed');
  assert.match(body.error.message, /invalid-input-response/);
});

test('3x secret: timeout-or-duplicate', async () => {
  const { status, body } = await ask(workers.spent.url, QUESTION, { token: 'anything' });
  assert.equal(status, 403);
  assert.match(body.error.message, /timeout-or-duplicate/);
});

test('a missing token is refused without a call', async () => {
  const before = fake.calls.length;
  const { status, body } = await ask(workers.pass.url, QUESTION);
  assert.equal(status, 403);
  assert.match(body.error.message, /missing-input-response/);
  assert.equal(fake.calls.length, before);
});

test('an oversize token is rejected without a call', async () => {
  const before = fake.calls.length;
  const { status } = await ask(workers.pass.url, QUESTION, { token: 't'.repeat(2049) });
  assert.equal(status, 400);
  assert.equal(fake.calls.length, before);
});

test('siteverify down: fail closed', async () => {
  const { status, body } = await ask(workers.unreachable.url, QUESTION, { token: 'x' });
  assert.equal(status, 403);
  assert.equal(body.error.code, 'turnstile_failed');
  assert.match(body.error.message, /siteverify-unreachable/);
});

test('siteverify hangs: fail closed after the timeout', async () => {
  const started = Date.now();
  const { status, body } = await ask(workers.pass.url, QUESTION, { token: 'hang' });
  assert.equal(status, 403);
  assert.match(body.error.message, /siteverify-timeout/);
  assert.ok(Date.now() - started < 5000, 'bounded by TURNSTILE_TIMEOUT_MS');
});

test('production without TURNSTILE_SECRET: /ask refuses to run, naming the secret', async () => {
  const { status, body } = await ask(workers.production.url, QUESTION, { token: 'x' });
  assert.equal(status, 503);
  assert.equal(body.error.code, 'misconfigured');
  assert.match(body.error.message, /TURNSTILE_SECRET/);
});

test('development without a secret says plainly that it skipped', async () => {
  const dev = await startWorker();
  try {
    await ingest(dev.url, corpusDocuments());
    const { body } = await ask(dev.url, QUESTION);
    const stage = body.stages.find((s) => s.name === 'turnstile');
    assert.equal(stage.status, 'skipped');
    assert.match(stage.detail, /no TURNSTILE_SECRET configured/);
  } finally {
    await dev.stop();
  }
});

test('the admin token bypasses Turnstile (for the eval runner)', async () => {
  const res = await fetch(`${workers.pass.url}/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ question: QUESTION }),
  });
  assert.equal(res.status, 200);
  const stage = (await res.json()).stages.find((s) => s.name === 'turnstile');
  assert.equal(stage.status, 'skipped');
});
