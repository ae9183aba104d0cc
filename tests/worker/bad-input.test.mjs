// Bad input never gets a 5xx: each case (over 40, table-driven) gets a 4xx JSON
// error with a stable code, and the worker stays healthy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, ADMIN_TOKEN } from './harness.mjs';

let worker;
before(async () => { worker = await startWorker(); });
after(() => worker?.stop());

const json = { 'content-type': 'application/json' };
const body = (question) => JSON.stringify({ question });

const cases = [
  ['GET /ask', { method: 'GET' }, 405, 'method_not_allowed'],
  ['PUT /ask', { method: 'PUT', headers: json, body: body('hi') }, 405, 'method_not_allowed'],
  ['no content type', { method: 'POST', body: body('hi') }, 415, 'unsupported_media_type'],
  ['text/plain', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: body('hi') }, 415, 'unsupported_media_type'],
  ['form encoded', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'question=hi' }, 415, 'unsupported_media_type'],
  ['malformed JSON', { method: 'POST', headers: json, body: '{"question": ' }, 400, 'bad_request'],
  ['empty body', { method: 'POST', headers: json, body: '' }, 400, 'bad_request'],
  ['JSON array', { method: 'POST', headers: json, body: '["hi"]' }, 400, 'bad_request'],
  ['JSON string', { method: 'POST', headers: json, body: '"hi"' }, 400, 'bad_request'],
  ['missing question', { method: 'POST', headers: json, body: '{}' }, 400, 'bad_request'],
  ['question is a number', { method: 'POST', headers: json, body: '{"question": 7}' }, 400, 'bad_request'],
  ['question is an object', { method: 'POST', headers: json, body: '{"question": {"a": 1}}' }, 400, 'bad_request'],
  ['empty question', { method: 'POST', headers: json, body: body('') }, 400, 'bad_request'],
  ['whitespace question', { method: 'POST', headers: json, body: body(' \n\t ') }, 400, 'bad_request'],
  ['1001 characters', { method: 'POST', headers: json, body: body('a'.repeat(1001)) }, 400, 'bad_request'],
  ['control characters', { method: 'POST', headers: json, body: body('hi\u0000there') }, 400, 'bad_request'],
  ['deep nesting', { method: 'POST', headers: json, body: '['.repeat(5000) + ']'.repeat(5000) }, 400, 'bad_request'],
  ['invalid UTF-8', { method: 'POST', headers: json, body: Buffer.from([0x7b, 0x22, 0x71, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) }, 400, 'bad_request'],
  ['body over 16 KiB', { method: 'POST', headers: json, body: JSON.stringify({ question: 'hi', pad: 'x'.repeat(17 * 1024) }) }, 413, 'payload_too_large'],
  ['oversize token', { method: 'POST', headers: json, body: JSON.stringify({ question: 'hi', token: 't'.repeat(2049) }) }, 400, 'bad_request'],
  ['token of the wrong type', { method: 'POST', headers: json, body: JSON.stringify({ question: 'hi', token: 5 }) }, 400, 'bad_request'],
  ['token is an object', { method: 'POST', headers: json, body: JSON.stringify({ question: 'hi', token: { a: 1 } }) }, 400, 'bad_request'],
  ['JSON null', { method: 'POST', headers: json, body: 'null' }, 400, 'bad_request'],
  ['JSON number', { method: 'POST', headers: json, body: '42' }, 400, 'bad_request'],
  ['question is an array', { method: 'POST', headers: json, body: '{"question": ["how much"]}' }, 400, 'bad_request'],
  ['question is a boolean', { method: 'POST', headers: json, body: '{"question": true}' }, 400, 'bad_request'],
  ['trailing garbage after the object', { method: 'POST', headers: json, body: '{"question": "hi"} x' }, 400, 'bad_request'],
  ['deeply nested object', { method: 'POST', headers: json, body: '{"a":'.repeat(2000) + '1' + '}'.repeat(2000) }, 400, 'bad_request'],
  ['control character in a long question', { method: 'POST', headers: json, body: body(`${'a'.repeat(500)}\u001b[31m`) }, 400, 'bad_request'],
  ['DELETE /ask', { method: 'DELETE' }, 405, 'method_not_allowed'],
  ['content type with a bogus charset still JSON', { method: 'POST', headers: { 'content-type': 'application/jsonx' }, body: body('hi') }, 415, 'unsupported_media_type'],
];

for (const [name, init, status, code] of cases) {
  test(`/ask: ${name} -> ${status} ${code}`, async () => {
    const res = await fetch(`${worker.url}/ask`, init);
    assert.equal(res.status, status);
    assert.match(res.headers.get('content-type'), /^application\/json/);
    const payload = await res.json();
    assert.equal(payload.error.code, code);
    assert.ok(payload.error.message.length > 0);
    assert.match(payload.requestId, /^[0-9a-f]{32}$/);
    if (status === 405) assert.equal(res.headers.get('allow'), 'POST');
  });
}

const ingestBody = JSON.stringify({ documents: [{ name: 'a.md', text: '## A\n\nB.' }] });
const adminCases = [
  ['no token', {}, 401, 'unauthorized'],
  ['wrong token', { authorization: 'Bearer nope' }, 401, 'unauthorized'],
  ['token without the Bearer scheme', { authorization: ADMIN_TOKEN }, 401, 'unauthorized'],
];
for (const [name, headers, status, code] of adminCases) {
  test(`/admin/ingest: ${name} -> ${status}`, async () => {
    const res = await fetch(`${worker.url}/admin/ingest`, { method: 'POST', headers: { ...json, ...headers }, body: ingestBody });
    assert.equal(res.status, status);
    assert.equal((await res.json()).error.code, code);
  });
}

test('/admin/ingest: a body that is not an ingest request -> 400', async () => {
  const res = await fetch(`${worker.url}/admin/ingest`, {
    method: 'POST', headers: { ...json, authorization: `Bearer ${ADMIN_TOKEN}` }, body: '{"docs": []}',
  });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error.code, 'bad_request');
});

const routeCases = [
  ['GET /admin/ingest', '/admin/ingest', { method: 'GET' }, 405, 'method_not_allowed'],
  ['POST /health', '/health', { method: 'POST' }, 405, 'method_not_allowed'],
  ['POST /search', '/search?q=x', { method: 'POST' }, 405, 'method_not_allowed'],
  ['POST /admin/spend', '/admin/spend', { method: 'POST' }, 405, 'method_not_allowed'],
  ['GET /admin/spend without a token', '/admin/spend', { method: 'GET' }, 401, 'unauthorized'],
  ['GET /admin/audit/verify with a wrong token', '/admin/audit/verify', { headers: { authorization: 'Bearer wrong' } }, 401, 'unauthorized'],
  ['GET /search without q', '/search', {}, 400, 'bad_request'],
  ['GET /search with k=0', '/search?q=x&k=0', {}, 400, 'bad_request'],
];
for (const [name, path, init, status, code] of routeCases) {
  test(`${name} -> ${status} ${code}`, async () => {
    const res = await fetch(`${worker.url}${path}`, init);
    assert.equal(res.status, status);
    assert.equal((await res.json()).error.code, code);
  });
}

test('unknown routes -> 404 JSON', async () => {
  for (const path of ['/nope', '/ask/extra', '/admin']) {
    const res = await fetch(`${worker.url}${path}`);
    assert.equal(res.status, 404, path);
    assert.equal((await res.json()).error.code, 'not_found');
  }
});

test('the worker is still healthy after all of it', async () => {
  const res = await fetch(`${worker.url}/health`);
  assert.equal(res.status, 200);
  assert.ok(!worker.logs.join('').includes('panicked'), 'no panic was logged');
});
