// Paired cases of scripts/bench-judge as tests: on the Workers AI engine, a
// right answer in a model's own words (a case's `reference`, judged by a
// perfect judge) is shown, and a fluent wrong one (its `wrongReference`,
// judged by a fooled judge) is refused. The doubles are scripted from the
// eval cases by the markers 📜 / 🃏 / 💯 / 🤥 (tests/doubles/index.js).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWorker, ingest, ask, corpusDocuments, WORKERS_AI, ROOT } from './harness.mjs';

const cases = [...JSON.parse(readFileSync(join(ROOT, 'evals', 'cases.json'), 'utf8')), ...JSON.parse(readFileSync(join(ROOT, 'evals', 'harbor-natural.json'), 'utf8'))];
const byId = (id) => cases.find((c) => c.id === id);

let worker;
before(async () => {
  worker = await startWorker({ ...WORKERS_AI });
  const { status, body } = await ingest(worker.url, corpusDocuments());
  assert.equal(status, 200, JSON.stringify(body));
});
after(() => worker?.stop());

// Dev cases, one of each shape: a "Yes, …" answer, two facts of one passage
// joined in one sentence, "No, …" with a negation the source words
// differently, a changed number, an answer about another room, and another
// passage's true fact given for this question; two prices of two passages
// summed in one sentence, each bound to its own name; and a filler ("the
// reception staff") moved in from another passage.
for (const id of ['ans-09', 'ans-25', 'premise-04', 'ans-11', 'ans-13', 'ans-45', 'ans-17', 'lookalike-03']) {
  const c = byId(id);
  test(`${id}: the right answer in a model's words is shown, the ${c.wrongKind} wrong one refused`, async () => {
    const right = (await ask(worker.url, `${c.question} 📜💯`)).body;
    assert.equal(right.status, 'answered', JSON.stringify(right.stages.filter((s) => s.status !== 'passed')));
    assert.ok(right.answer.startsWith(c.reference), right.answer);
    assert.ok(right.citations.some((x) => c.passages.includes(x.passageId)), 'it cites a passage that states it');
    const wrong = (await ask(worker.url, `${c.question} 🃏🤥`)).body;
    assert.equal(wrong.status, 'refused', wrong.answer);
    assert.equal(wrong.answer, null);
  });
}

test('a fabricated answer to a question the corpus cannot answer is refused, whatever the judge says', async () => {
  const c = byId('gap-01');
  const { body } = await ask(worker.url, `${c.question} 🃏🤥`);
  assert.equal(body.status, 'refused', body.answer);
});
