// The body of scripts/bench-judge (see there).
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startWorker, WORKERS_AI, ADMIN_TOKEN, ROOT } from '../tests/worker/harness.mjs';

const show = process.env.SHOW_MISSES === '1';
// --meaning: the doubles' embedding reads meaning as the perfect judge does (🧠).
const meaning = process.argv.includes('--meaning') ? '🧠' : '';
const only = process.argv.slice(2).filter((a) => a !== '--meaning');
const CORPORA = [
  { name: 'Harbor Commons', dir: 'corpus', files: ['evals/cases.json', 'evals/harbor-natural.json'] },
  { name: 'Billwren', dir: 'corpora/billwren', files: ['evals/billwren.json', 'evals/billwren-natural.json'] },
  { name: 'Debian Policy', dir: '.tools/debian-policy/corpus', files: ['evals/debian-policy/questions.json'], build: true },
].filter((c) => only.length === 0 || only.some((o) => c.name.toLowerCase().includes(o.toLowerCase())));

const answerable = (c) => c.expected === 'answered' || c.kind === 'single' || c.kind === 'hop';
const unanswerable = (c) => c.expected === 'refused' || c.kind === 'unanswerable';

/** POST /ask as the operator (no Turnstile, no rate limit; the spend cap still applies). */
async function ask(url, question) {
  const res = await fetch(`${url}/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ question }),
  });
  return res.json();
}

/** Why a response refused: its reason and the refusing stage's detail, with
 * quoted claims and numbers folded so that like reasons count together. */
function why(body) {
  const stage = (body.stages ?? []).find((s) => s.status === 'refused' || s.status === 'blocked');
  // Under the threshold: the caps that put it there (the sanity stage's detail).
  const caps = body.reason === 'below_threshold' ? (body.stages ?? []).find((s) => s.name === 'sanity')?.detail : undefined;
  const detail = (caps ?? stage?.detail ?? '')
    .replace(/"(?:[^"\\]|\\.)*": /g, '')
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/\d+(\.\d+)?/g, 'N')
    .split('; ')
    .filter((part) => !/^mean N/.test(part))
    .join('; ');
  return `${body.reason ?? body.status}${stage ? ` @${stage.name}` : ''}: ${detail}`.slice(0, 200);
}

const pct = (n, d) => (d ? `${((100 * n) / d).toFixed(1)}%` : '—');

async function bench(corpus) {
  const cases = corpus.files.filter((f) => existsSync(join(ROOT, f))).flatMap((f) => JSON.parse(readFileSync(join(ROOT, f), 'utf8')));
  const dir = join(ROOT, corpus.dir);
  if (corpus.build) execFileSync(join(ROOT, 'scripts', 'debian-policy-corpus'), [dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  const worker = await startWorker({ ...WORKERS_AI, vars: { DAILY_CAP_USD: '1000' } });
  const rows = [];
  try {
    execFileSync(join(ROOT, 'scripts', 'ingest'), ['--url', worker.url, dir], { env: { ...process.env, ADMIN_TOKEN }, stdio: ['ignore', 'ignore', 'inherit'] });
    for (const c of cases) {
      const row = { c };
      if (answerable(c) && c.reference) row.right = await ask(worker.url, `${c.question} 📜💯${meaning}`);
      if ((answerable(c) || unanswerable(c)) && c.wrongReference) row.wrong = await ask(worker.url, `${c.question} 🃏🤥${meaning}`);
      if (row.right || row.wrong) rows.push(row);
    }
  } finally {
    await worker.stop();
  }
  return rows;
}

function report(name, rows) {
  console.log(`\n## ${name}\n`);
  console.log('| split | right shown (perfect judge) | wrong caught (fooled judge) | pair: right shown and wrong refused | fabrications on unanswerables caught |');
  console.log('|---|---:|---:|---:|---:|');
  for (const split of ['dev', 'test']) {
    const mine = rows.filter((r) => r.c.split === split);
    const ans = mine.filter((r) => answerable(r.c));
    const shown = ans.filter((r) => r.right?.status === 'answered').length;
    const withWrong = ans.filter((r) => r.wrong);
    const caught = withWrong.filter((r) => r.wrong.status !== 'answered').length;
    const pairs = ans.filter((r) => r.right && r.wrong);
    const paired = pairs.filter((r) => r.right.status === 'answered' && r.wrong.status !== 'answered').length;
    const un = mine.filter((r) => unanswerable(r.c) && r.wrong);
    const unCaught = un.filter((r) => r.wrong.status !== 'answered').length;
    console.log(`| ${split} | ${shown}/${ans.length} (${pct(shown, ans.length)}) | ${caught}/${withWrong.length} (${pct(caught, withWrong.length)}) | ${paired}/${pairs.length} (${pct(paired, pairs.length)}) | ${unCaught}/${un.length} (${pct(unCaught, un.length)}) |`);
  }
  const tally = (list) => {
    const counts = new Map();
    for (const body of list) counts.set(why(body), (counts.get(why(body)) ?? 0) + 1);
    return [...counts].sort((a, b) => b[1] - a[1]);
  };
  const refusedRight = rows.filter((r) => answerable(r.c) && r.right && r.right.status !== 'answered');
  if (refusedRight.length) {
    console.log('\nright answers refused, by reason:');
    for (const [reason, n] of tally(refusedRight.map((r) => r.right))) console.log(`  ${n} × ${reason}`);
  }
  const stood = rows.filter((r) => r.wrong?.status === 'answered');
  if (stood.length) {
    console.log('\nwrong answers shown:');
    for (const r of stood) console.log(`  ${r.c.id} (${r.c.split}, ${r.c.wrongKind ?? '?'}): ${r.c.question} → ${r.wrong.answer}`);
  }
  if (show) {
    console.log('\nright answers refused, each:');
    for (const r of refusedRight) console.log(`  ${r.c.id} (${r.c.split}): ${r.c.question}\n    ${r.c.reference}\n    ${why(r.right)}`);
  }
}

const all = [];
for (const corpus of CORPORA) {
  const rows = await bench(corpus);
  report(corpus.name, rows);
  all.push(...rows);
}
if (CORPORA.length > 1) report('All corpora', all);
