// The body of scripts/bench-escalation (see there).
import { startWorker, ingest, ask, corpusDocuments, ADMIN_TOKEN } from '../tests/worker/harness.mjs';
import { startReceiver } from '../tests/worker/fake-webhook.mjs';

const i = process.argv.indexOf('--questions');
const QUESTIONS = i >= 0 ? Number(process.argv[i + 1]) : 30;
const SECRET = 'bench-escalation-secret';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
// Distinct questions the sample corpus does not answer (corpus/COVERAGE.md: no parking).
const questions = Array.from({ length: QUESTIONS }, (_, n) => `Where can I park my car, space ${n + 1}?`);

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

async function measure(label, vars, receiver) {
  const worker = await startWorker({ vars: { REVIEW_INBOX: 'on', ...vars } });
  try {
    await ingest(worker.url, corpusDocuments());
    await ask(worker.url, 'warm up: where can I park?', {}, admin);
    const times = [];
    for (const q of questions) {
      const started = performance.now();
      const res = await ask(worker.url, q, {}, admin);
      times.push(performance.now() - started);
      if (res.body.status !== 'refused') throw new Error(`${q}: ${res.body.status}`);
    }
    const sent = receiver ? `, ${receiver.of('review.item').length} escalations received` : '';
    console.log(`${label.padEnd(34)} p50 ${quantile(times, 0.5).toFixed(1).padStart(6)} ms   p95 ${quantile(times, 0.95).toFixed(1).padStart(6)} ms${sent}`);
  } finally {
    await worker.stop();
  }
}

const receiver = await startReceiver(SECRET);
receiver.slow(6000);
console.log(`/ask of ${QUESTIONS} refused questions, each a new review item (local engine, workerd):`);
await measure('no webhook', {});
await measure('webhook answering after 6 s', { ESCALATION_WEBHOOK_URL: receiver.url, ESCALATION_WEBHOOK_SECRET: SECRET }, receiver);
await receiver.stop();
