// The rate limit (one atomic D1 statement per request) and the answer cache
// (Cache API in front of D1), under workerd with real local D1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, ingest, ask, corpusDocuments, d1, ADMIN_TOKEN, ROOT, runCron } from './harness.mjs';

let worker;
before(async () => {
  worker = await startWorker({ vars: { RATE_LIMIT: '10', IP_HASH_KEY: 'test-ip-key' } });
  await ingest(worker.url, corpusDocuments());
});
after(() => worker?.stop());

const client = (ip) => ({ 'cf-connecting-ip': ip });

test('200 concurrent requests from one client: exactly 10 are admitted', async () => {
  const questions = ['How much is a day pass?', 'Where can I park my car?', 'How long is security camera footage kept?'];
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) => ask(worker.url, questions[i % questions.length], {}, client('198.51.100.1'))),
  );
  const admitted = results.filter((r) => r.status === 200);
  const limited = results.filter((r) => r.status === 429);
  assert.equal(admitted.length, 10);
  assert.equal(limited.length, 190);
  assert.equal(limited[0].body.error.code, 'rate_limited');
  assert.equal(limited[0].headers.get('ratelimit-limit'), '10');
  assert.equal(limited[0].headers.get('ratelimit-remaining'), '0');
  const retryAfter = Number(limited[0].headers.get('retry-after'));
  assert.ok(retryAfter > 0 && retryAfter <= 3600, `Retry-After ${retryAfter}`);
  const remaining = admitted.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
  assert.deepEqual(remaining, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'each admitted request saw its own count');
});

test('another client has its own window', async () => {
  const { status, headers } = await ask(worker.url, 'How much is a day pass?', {}, client('198.51.100.2'));
  assert.equal(status, 200);
  assert.equal(headers.get('ratelimit-remaining'), '9');
});

test('IPv6 clients are limited by their /64, the block one subscriber holds', async () => {
  const day = 'How much is a day pass?';
  assert.equal((await ask(worker.url, day, {}, client('2001:db8:1:2::1'))).headers.get('ratelimit-remaining'), '9');
  assert.equal((await ask(worker.url, day, {}, client('2001:db8:1:2:ffff:ffff:ffff:fffe'))).headers.get('ratelimit-remaining'), '8', 'same /64');
  assert.equal((await ask(worker.url, day, {}, client('2001:db8:1:3::1'))).headers.get('ratelimit-remaining'), '9', 'the next /64');
});

test('raw IPs are never stored: only keyed hashes', async () => {
  const rows = d1(worker.persist, 'SELECT client_key, count FROM rate_limits');
  assert.ok(rows.length >= 2);
  for (const row of rows) {
    assert.match(row.client_key, /^[0-9a-f]{64}$/);
    assert.ok(!row.client_key.includes('198.51.100'));
  }
  assert.ok(rows.some((r) => r.count === 200), 'refused requests are counted too');
});

test('the admin token is not rate limited', async () => {
  const res = await fetch(`${worker.url}/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}`, ...client('198.51.100.1') },
    body: JSON.stringify({ question: 'How much is a day pass?' }),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('ratelimit-limit'), null);
});

test('a repeated question is served from the cache, worded loosely', async () => {
  const first = await ask(worker.url, 'What should I do if I forget my key card?', {}, client('198.51.100.3'));
  assert.equal(first.body.cache.hit, false);
  assert.equal(first.body.stages.find((s) => s.name === 'cache').detail, 'miss');
  const again = await ask(worker.url, '  what should I do if I forget my KEY card ', {}, client('198.51.100.3'));
  assert.equal(again.status, 200);
  assert.equal(again.body.cache.hit, true);
  assert.equal(again.body.answer, first.body.answer);
  assert.notEqual(again.body.requestId, first.body.requestId);
  const names = again.body.stages.map((s) => s.name);
  assert.deepEqual(names.slice(0, 4), ['validate', 'turnstile', 'rate_limit', 'cache']);
  assert.ok(!names.includes('spend'), 'a hit never reaches the spend cap');
  assert.match(again.body.stages[3].detail, /^hit \((edge|d1)\)/);
  assert.equal(again.headers.get('ratelimit-remaining'), '8', 'a hit still counts against the limit');
});

test('refusals are cached too, in D1 with a TTL', async () => {
  await ask(worker.url, 'Where can I park my bicycle trailer?', {}, client('198.51.100.4'));
  const rows = d1(worker.persist, "SELECT status, pinned, expires_at - created_at AS ttl FROM answer_cache WHERE status = 'refused'");
  assert.ok(rows.length >= 1);
  assert.deepEqual([rows[0].pinned, rows[0].ttl], [0, 86400]);
});

test('a new corpus version is a new cache key', async () => {
  const q = 'How long is security camera footage kept?';
  await ask(worker.url, q, {}, client('198.51.100.5'));
  const docs = corpusDocuments().map((d) => (d.name === 'conduct.md' ? { ...d, text: d.text.replace('30 days and is then deleted', '45 days and is then deleted') } : d));
  await ingest(worker.url, docs);
  const { body } = await ask(worker.url, q, {}, client('198.51.100.5'));
  assert.equal(body.cache.hit, false);
  assert.match(body.answer, /45 days/);
  await ingest(worker.url, corpusDocuments());
});

test('the scheduled handler prunes ended windows and expired cache rows', async () => {
  d1(worker.persist, "INSERT INTO rate_limits (client_key, window_start, count) VALUES ('old', 0, 3); "
    + "INSERT INTO answer_cache (key, status, response, created_at, expires_at, pinned) "
    + "VALUES ('stale', 'answered', '{}', 0, 1, 0), ('kept', 'answered', '{}', 0, 1, 1)");
  assert.equal(await runCron(worker.url), 200);
  const [after] = d1(worker.persist, "SELECT "
    + "(SELECT count(*) FROM rate_limits WHERE client_key = 'old') AS old, "
    + "(SELECT count(*) FROM rate_limits) AS windows, "
    + "(SELECT group_concat(key) FROM answer_cache WHERE key IN ('stale', 'kept')) AS cached");
  assert.equal(after.old, 0, 'the ended window is gone');
  assert.ok(after.windows >= 2, 'current windows stay');
  assert.equal(after.cached, 'kept', 'the expired row is gone, the pinned one stays');
});

test('scripts/warm-cache asks and pins; pinned answers outlive their TTL', async () => {
  const { execFileSync } = await import('node:child_process');
  const { writeFileSync, mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const file = join(mkdtempSync(join(tmpdir(), 'groundgate-warm-')), 'questions.txt');
  writeFileSync(file, 'How much is a day pass?\nWhere can I park my car?\n');
  const out = execFileSync(join(ROOT, 'scripts', 'warm-cache'), ['--url', worker.url, file], {
    env: { ...process.env, ADMIN_TOKEN }, encoding: 'utf8',
  });
  assert.match(out, /2 questions: /);
  assert.match(out, /pinned 2 cached answers/);
  d1(worker.persist, 'UPDATE answer_cache SET expires_at = 0 WHERE pinned = 1');
  const { body } = await ask(worker.url, 'How much is a day pass?', {}, client('198.51.100.9'));
  assert.equal(body.cache.hit, true, 'an expired pinned answer is still served');
});

test('after a deploy changes the build, the cron asks pinned questions again and pins the new answers', async () => {
  const { build } = await (await fetch(`${worker.url}/health`)).json();
  assert.match(build, /^\d+\.\d+\.\d+\+rules\.\d+\+answers\.\d+$/);
  const pinned = () => d1(worker.persist, 'SELECT key, question, build FROM answer_cache WHERE pinned = 1 AND question IS NOT NULL ORDER BY question');
  assert.deepEqual(pinned().map((r) => [r.question, r.build]), [['How much is a day pass?', build], ['Where can I park my car?', build]]);
  // A row an older build pinned: its own key (the build is part of the key),
  // its mark, and a question this worker has never answered.
  const question = 'What should I do if I lose my key card?';
  d1(worker.persist, `INSERT INTO answer_cache (key, status, response, created_at, expires_at, pinned, question, build) `
    + `VALUES ('older-build', 'answered', '{}', 0, 1, 1, '${question}', '0.0.1+rules.0')`);
  assert.equal(await runCron(worker.url), 200);
  const after = pinned();
  assert.deepEqual(after.map((r) => [r.question, r.build]), [['How much is a day pass?', build], [question, build], ['Where can I park my car?', build]]);
  assert.ok(!after.some((r) => r.key === 'older-build'), 'the old row is gone');
  const { body } = await ask(worker.url, question, {}, client('198.51.100.10'));
  assert.equal(body.cache.hit, true, 'asked again by the cron, served from the cache');
});
