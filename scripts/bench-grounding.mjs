// The body of scripts/bench-grounding (see there).
import { readFileSync } from 'node:fs';
import { startWorker, ingest, ask, corpusDocuments, WORKERS_AI, ROOT, ADMIN_TOKEN } from '../tests/worker/harness.mjs';

const cases = JSON.parse(readFileSync(`${ROOT}/evals/cases.json`, 'utf8')).filter((c) => c.expected === 'answered');
const kinds = [
  ['clean, careful judge', ''],
  ['clean, fooled judge', '🤥'],
  ['changed number', '🔢🤥'],
  ['swapped entity (another plan or room named)', '🔀🤥'],
  ['invented sentence (words the corpus never uses)', '🆕🤥'],
  ['negation flip', '🙅🤥'],
  ['swapped entity, in lowercase', '🔡🤥'],
  ['changed number, written as words', '🔤🤥'],
  ['changed unit or currency', '💱🤥'],
  ['shifted day, month or time', '📅🤥'],
  ['invented sentence the decomposition leaves out', '🙈🤥'],
];

const worker = await startWorker({ ...WORKERS_AI });
const perOutcome = { answered: { n: 0, calls: 0, neurons: 0 }, refused: { n: 0, calls: 0, neurons: 0 } };
try {
  await ingest(worker.url, corpusDocuments());
  console.log(`${cases.length} answerable eval cases, Workers AI engine against the doubles`);
  // A fabrication can only be caught in an answer that would otherwise stand:
  // the shares below are over the cases answered with a clean generator.
  const answers = new Map();
  const run = async (marker) => {
    const answered = new Set();
    for (const c of cases) {
      // The admin token: no Turnstile, no rate limit; the spend cap still applies.
      const { body } = await ask(worker.url, `${c.question} ${marker}`.trim(), {}, { authorization: `Bearer ${ADMIN_TOKEN}` });
      const outcome = body.status === 'answered' ? 'answered' : 'refused';
      if (outcome === 'answered') answered.add(c.id);
      answers.set(c.id, body.answer);
      if (body.cache?.hit === false) {
        perOutcome[outcome].n += 1;
        perOutcome[outcome].calls += body.cost.calls;
        perOutcome[outcome].neurons += body.cost.neurons;
      }
    }
    return answered;
  };
  const careful = await run('');
  const clean = await run('🤥');
  console.log(`clean generator: ${careful.size} of ${cases.length} answered with a careful judge, ${clean.size} with a fooled one\n`);
  console.log('| fabricated claim appended, judge fooled (0.9 for every claim) | still answered | refused | refused share |');
  console.log('|---|---|---|---|');
  for (const [label, marker] of kinds.slice(2)) {
    const answered = await run(marker);
    const stood = [...clean].filter((id) => answered.has(id)).length;
    const refused = clean.size - stood;
    console.log(`| ${label} | ${stood} | ${refused} | ${((100 * refused) / clean.size).toFixed(1)}% |`);
    // SHOW_STOOD=dev lists the dev split's fabrications that stood (tune on dev only).
    for (const c of cases.filter((c) => c.split === process.env.SHOW_STOOD && clean.has(c.id) && answered.has(c.id))) {
      console.log(`    stood ${c.id}: ${c.question} → ${answers.get(c.id)}`);
    }
  }
  console.log('\nper question (uncached):');
  for (const [outcome, t] of Object.entries(perOutcome)) {
    if (t.n) console.log(`  ${outcome}: ${(t.calls / t.n).toFixed(2)} model calls, ${(t.neurons / t.n).toFixed(1)} neurons ($${((t.neurons / t.n) * 0.011 / 1000).toFixed(6)})  over ${t.n}`);
  }
} finally {
  await worker.stop();
}
