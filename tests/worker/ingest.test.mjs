// Re-ingest is a diff: unchanged passages are skipped, edits touch exactly their
// passages, and the corpus version changes exactly when content does.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorker, ingest, ask, corpusDocuments, indexRows, ROOT, ADMIN_TOKEN } from './harness.mjs';

let worker;
before(async () => { worker = await startWorker(); });
after(() => worker?.stop());

const health = async () => (await fetch(`${worker.url}/health`)).json();

test('first ingest adds every passage; a second one changes nothing', async () => {
  const first = await ingest(worker.url, corpusDocuments());
  assert.equal(first.status, 200);
  assert.equal(first.body.added.length, 52);
  assert.equal(first.body.passages, 52);
  const again = await ingest(worker.url, corpusDocuments());
  assert.deepEqual(
    [again.body.added.length, again.body.updated.length, again.body.unchanged, again.body.removed.length],
    [0, 0, 52, 0],
  );
  assert.equal(again.body.corpusVersion, first.body.corpusVersion);
  assert.equal((await health()).corpusVersion, first.body.corpusVersion);
});

test('editing one document updates exactly its changed passages and the version', async () => {
  const before = await health();
  const docs = corpusDocuments().map((d) =>
    d.name === 'hours.md' ? { ...d, text: d.text.replace('Larkport Harbor Day (June 12)', 'Larkport Harbor Day (June 14)') } : d);
  assert.notDeepEqual(docs, corpusDocuments(), 'the edit applies');
  const { body } = await ingest(worker.url, docs);
  assert.deepEqual(body.updated, ['hours-04']);
  assert.deepEqual([body.added.length, body.removed.length, body.unchanged], [0, 0, 51]);
  assert.notEqual(body.corpusVersion, before.corpusVersion);
  const answer = await ask(worker.url, 'When is Larkport Harbor Day?');
  assert.ok(answer.body.retrieval.some((r) => r.text.includes('June 14')), 'search sees the new text');
  assert.ok(!answer.body.retrieval.some((r) => r.text.includes('June 12')), 'and not the old');
});

test('a document left out of a complete ingest is removed, and restoring it restores the version', async () => {
  const full = await ingest(worker.url, corpusDocuments());
  const without = await ingest(worker.url, corpusDocuments().filter((d) => d.name !== 'conduct.md'));
  assert.equal(without.body.removed.length, 7);
  assert.ok(without.body.removed.every((id) => id.startsWith('conduct-')));
  assert.equal(without.body.passages, 45);
  const { body } = await ask(worker.url, 'How long is security camera footage kept?');
  assert.equal(body.status, 'refused');
  const restored = await ingest(worker.url, corpusDocuments());
  assert.equal(restored.body.added.length, 7);
  assert.equal(restored.body.corpusVersion, full.body.corpusVersion);
  assert.deepEqual(indexRows(worker.persist), { passages: 52, rows: 52, keyed: 52 }, 'each passage indexed once, under its rowid');
});

test('scripts/ingest reports what it did', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'groundgate-corpus-'));
  cpSync(join(ROOT, 'corpus'), dir, { recursive: true });
  writeFileSync(join(dir, 'extra.md'), '# Extra\n\n## Parking Garage\n\nThe parking garage opens at 6:00 am.\n');
  const run = () => execFileSync(join(ROOT, 'scripts', 'ingest'), ['--url', worker.url, dir], {
    env: { ...process.env, ADMIN_TOKEN }, encoding: 'utf8',
  });
  const out = run();
  // 9 documents: COVERAGE.md in the folder is notes about the corpus, not sent.
  assert.match(out, /9 documents -> 53 passages, corpus version [0-9a-f]{16}/);
  assert.match(out, /added 1 \(extra-01\)/);
  assert.match(out, /unchanged 52/);
  assert.match(run(), /added 0\n {2}updated 0\n {2}unchanged 53\n {2}removed 0/);
  const { body } = await ask(worker.url, 'When does the parking garage open?');
  assert.equal(body.status, 'answered');
  assert.deepEqual(body.citations.map((c) => c.passageId), ['extra-01']);
});
