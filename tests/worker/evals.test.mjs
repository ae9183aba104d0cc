// scripts/evals against the worker under workerd (local engine): every case,
// results written, and the bar held: no fabrication, accuracy >= 70%.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorker, ingest, corpusDocuments, ROOT, ADMIN_TOKEN } from './harness.mjs';

let worker;
before(async () => {
  worker = await startWorker();
  await ingest(worker.url, corpusDocuments());
});
after(() => worker?.stop());

test('scripts/evals runs every case and holds the bar', async () => {
  const out = mkdtempSync(join(tmpdir(), 'groundgate-evals-'));
  const code = await new Promise((resolve) => {
    const child = spawn(join(ROOT, 'scripts', 'evals'), ['--url', worker.url, '--out', out], {
      env: { ...process.env, ADMIN_TOKEN }, stdio: 'ignore',
    });
    child.on('close', resolve);
  });
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  const cases = JSON.parse(readFileSync(join(ROOT, 'evals', 'cases.json'), 'utf8'));
  assert.equal(results.cases.length, cases.length);
  assert.equal(results.overall.fabricationRate, 0);
  assert.ok(results.overall.accuracy >= 70, `accuracy ${results.overall.accuracy}`);
  assert.ok(results.cases.filter((c) => c.expected === 'blocked').every((c) => c.status === 'blocked'));
  assert.deepEqual(results.sweep.map((s) => s.threshold), [0.5, 0.6, 0.7, 0.8, 0.9]);
  assert.deepEqual(results.recall.map((r) => r.k), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.ok(results.recall[7].lexical >= results.recall[0].lexical);
  assert.match(readFileSync(join(out, 'results.md'), 'utf8'), /\| \*\*overall\*\* \| 90 \|/);
  assert.equal(code, 0);
});
