// Retrieval that follows references and retries. One hop: a question whose
// best passage only points at another ("set out in Section 3.2") is answered
// from the passage it points at, and refused with the hop switched off; the
// ingest reports references nothing answers to, and keeps them. One rewrite:
// weak evidence is looked up once more for the words no passage held.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startWorker, ingest, ask, corpusDocuments, ROOT } from './harness.mjs';

const FIXTURE = join(ROOT, 'tests', 'fixtures', 'references');
const QUESTION = 'When may guests of Harbor members enter the building?';
const workers = [];
after(() => Promise.all(workers.map((w) => w.stop())));

async function workerWith(vars, fixture = FIXTURE) {
  const worker = await startWorker({ vars: { TOP_K: '1', ...vars } });
  workers.push(worker);
  const loaded = await ingest(worker.url, corpusDocuments(fixture), { vocabulary: null });
  assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
  return worker;
}

test('an answer one reference away is answered with the hop, citing the referenced passage', async () => {
  const worker = await workerWith({ HOP_SLOTS: '1' });
  const { body } = await ask(worker.url, QUESTION);
  const retrieve = body.stages.find((s) => s.name === 'retrieve');
  assert.match(retrieve.detail, /followed 1 reference: building-01 -> guests-02/);
  assert.equal(body.status, 'answered', JSON.stringify(body.stages));
  assert.deepEqual(body.citations.map((c) => c.passageId), ['guests-02']);
  assert.equal(body.retrieval.find((r) => r.passageId === 'guests-02').via, 'building-01');
  assert.match(body.answer, /8:00 am to 6:00 pm/);
});

test('with the hop off the same question is refused', async () => {
  const worker = await workerWith({ HOP_SLOTS: '0' });
  const { body } = await ask(worker.url, QUESTION);
  assert.equal(body.status, 'refused');
  assert.ok(body.retrieval.every((r) => !r.via));
});

test('the commit counts references and keeps the unresolved ones', async () => {
  const worker = await startWorker();
  workers.push(worker);
  const begin = (body) => fetch(`${worker.url}/admin/ingest/begin`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer test-admin-token' }, body: JSON.stringify(body),
  });
  const id = 'c'.repeat(32);
  await begin({ ingest: id, complete: true, documents: corpusDocuments(FIXTURE).map((d) => d.name) });
  const post = (path, body) => fetch(`${worker.url}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer test-admin-token' }, body: JSON.stringify(body),
  });
  assert.equal((await post(`/admin/ingest/${id}/pages/0`, { documents: corpusDocuments(FIXTURE) })).status, 200);
  const committed = await (await post(`/admin/ingest/${id}/commit`, {})).json();
  assert.deepEqual([committed.references, committed.unresolved, committed.unresolvedFirst], [2, 1, ['pricing-02 -> n:appendix c']]);
});

test('a rewrite rescues a question on weak evidence; one still refuses; off, the first is refused', async () => {
  const fixture = join(ROOT, 'tests', 'fixtures', 'rewrite');
  const on = await workerWith({}, fixture);
  const evidence = (body) => body.stages.find((s) => s.name === 'evidence').detail;
  const rescued = (await ask(on.url, 'When does the Osprey lounge bar open on Sundays?')).body;
  assert.equal(rescued.status, 'answered', evidence(rescued));
  assert.match(evidence(rescued), /^rewrite: looked up "lounge bar" again, 1 new passage/);
  assert.deepEqual(rescued.citations.map((c) => c.passageId), ['osprey-02']);
  const still = (await ask(on.url, 'When does the chess club meet in the Osprey lounge bar on Sundays?')).body;
  assert.equal(still.status, 'refused');
  assert.match(evidence(still), /^rewrite:/);
  const off = await workerWith({ QUERY_REWRITE: 'off' }, fixture);
  const refused = (await ask(off.url, 'When does the Osprey lounge bar open on Sundays?')).body;
  assert.deepEqual([refused.status, refused.reason], ['refused', 'no_evidence']);
});

test('HEADING_WEIGHT moves a heading match up: the text that repeats the word ranks first at 1, the heading at 4', async () => {
  const fixture = join(ROOT, 'tests', 'fixtures', 'headings');
  const order = async (worker) => (await (await fetch(`${worker.url}/search?q=parking&k=2`)).json()).results.map((r) => r.passageId);
  assert.deepEqual(await order(await workerWith({}, fixture)), ['visitors-01', 'notes-01']);
  assert.deepEqual(await order(await workerWith({ HEADING_WEIGHT: '4' }, fixture)), ['notes-01', 'visitors-01']);
});
