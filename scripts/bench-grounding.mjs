// The body of scripts/bench-grounding (see there).
import { readFileSync } from 'node:fs';
import { startWorker, ingest, ask, corpusDocuments, WORKERS_AI, ROOT, ADMIN_TOKEN } from '../tests/worker/harness.mjs';

const cases = JSON.parse(readFileSync(`${ROOT}/evals/cases.json`, 'utf8')).filter((c) => c.expected === 'answered');
const kinds = [
  ['clean, careful judge', ''],
  ['clean, fooled judge', '🤥'],
  ['changed number, fooled judge', '🔢🤥'],
  ['swapped entity, fooled judge', '🔀🤥'],
  ['invented sentence, fooled judge', '🆕🤥'],
];

const worker = await startWorker({ ...WORKERS_AI });
const perOutcome = { answered: { n: 0, calls: 0, neurons: 0 }, refused: { n: 0, calls: 0, neurons: 0 } };
try {
  await ingest(worker.url, corpusDocuments());
  console.log(`${cases.length} answerable cases, Workers AI engine against the doubles\n`);
  console.log('| generator output | answered | refused | refused share |');
  console.log('|---|---|---|---|');
  for (const [label, marker] of kinds) {
    let answered = 0;
    for (const c of cases) {
      // The admin token: no Turnstile, no rate limit; the spend cap still applies.
      const { body } = await ask(worker.url, `${c.question} ${marker}`.trim(), {}, { authorization: `Bearer ${ADMIN_TOKEN}` });
      const outcome = body.status === 'answered' ? 'answered' : 'refused';
      answered += outcome === 'answered' ? 1 : 0;
      if (body.cache?.hit === false) {
        perOutcome[outcome].n += 1;
        perOutcome[outcome].calls += body.cost.calls;
        perOutcome[outcome].neurons += body.cost.neurons;
      }
    }
    const refused = cases.length - answered;
    console.log(`| ${label} | ${answered} | ${refused} | ${((100 * refused) / cases.length).toFixed(1)}% |`);
  }
  console.log('\nper question (uncached):');
  for (const [outcome, t] of Object.entries(perOutcome)) {
    if (t.n) console.log(`  ${outcome}: ${(t.calls / t.n).toFixed(2)} model calls, ${(t.neurons / t.n).toFixed(1)} neurons ($${((t.neurons / t.n) * 0.011 / 1000).toFixed(6)})  over ${t.n}`);
  }
} finally {
  await worker.stop();
}
