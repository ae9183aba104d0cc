// scripts/evals against the worker under workerd (local engine), for both
// sample corpora: every case, results written, and the bar held: no
// fabrication, no wrong answer on the dev split, dev accuracy at its bar.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorker, ingest, corpusDocuments, corpusVocabulary, ROOT, ADMIN_TOKEN } from './harness.mjs';

let worker;
before(async () => {
  worker = await startWorker();
});
after(() => worker?.stop());

/** Runs scripts/evals over one corpus's cases; returns its exit code and results. */
async function evals(cases, minAccuracy) {
  const out = mkdtempSync(join(tmpdir(), 'groundgate-evals-'));
  const code = await new Promise((resolve) => {
    const child = spawn(join(ROOT, 'scripts', 'evals'), ['--url', worker.url, '--cases', cases, '--min-accuracy', String(minAccuracy), '--out', out], {
      env: { ...process.env, ADMIN_TOKEN }, stdio: 'ignore',
    });
    child.on('close', resolve);
  });
  return { code, results: JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')), md: readFileSync(join(out, 'results.md'), 'utf8') };
}

for (const [name, dir, file, bar] of [['the sample corpus', 'corpus', 'cases.json', 0.75], ['the Billwren corpus', join('corpora', 'billwren'), 'billwren.json', 0.4]]) {
  test(`scripts/evals runs every case of ${name} and holds the bar`, async () => {
    const loaded = await ingest(worker.url, corpusDocuments(join(ROOT, dir)), { vocabulary: corpusVocabulary(join(ROOT, dir)) });
    assert.equal(loaded.status, 200);
    const cases = JSON.parse(readFileSync(join(ROOT, 'evals', file), 'utf8'));
    const { code, results, md } = await evals(join(ROOT, 'evals', file), bar);
    assert.equal(results.results.length, cases.length);
    assert.equal(results.overall.fabricationRate, 0);
    assert.equal(results.perSplit.dev.wrongAnswerRate, 0);
    assert.ok(results.perSplit.dev.accuracy >= bar * 100, `dev accuracy ${results.perSplit.dev.accuracy}`);
    assert.ok(results.results.filter((c) => c.expected === 'blocked').every((c) => c.status === 'blocked'));
    assert.deepEqual(results.sweep.map((s) => s.threshold), [0.5, 0.6, 0.7, 0.8, 0.9]);
    assert.deepEqual(results.recall.map((r) => r.k), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.ok(results.recall[7].lexical >= results.recall[0].lexical);
    assert.ok(md.includes(`| **overall** | ${cases.length} |`), md);
    assert.equal(code, 0);
  });
}
