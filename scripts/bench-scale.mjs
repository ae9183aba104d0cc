// The body of scripts/bench-scale (see there).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startWorker, ADMIN_TOKEN, ROOT } from '../tests/worker/harness.mjs';

const args = process.argv.slice(2);
const source = args[0];
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const SIZES = option('--sizes', '1000,10000,100000').split(',').map(Number);
const QUESTIONS = Number(option('--questions', 40));

const files = readdirSync(join(source, 'corpus')).filter((n) => n.endsWith('.md')).sort();
const texts = files.map((name) => readFileSync(join(source, 'corpus', name), 'utf8'));
const sections = (text) => text.split(/^## /m).slice(1);
/** Half answerable (paragraph in the corpus, in the smallest size too), half
 * not (left out), evenly spread. */
const all = JSON.parse(readFileSync(join(source, 'questions.json'), 'utf8'));
const smallest = new Set(texts.flatMap(sections).slice(0, Math.min(...SIZES)).map((s) => Number(s.match(/^Entry (\d+)/)?.[1])));
const pick = (bucket) => {
  const of = all.filter((q) => q.bucket === bucket && (bucket === 'left_out' || smallest.has(q.row)));
  return Array.from({ length: QUESTIONS / 2 }, (_, i) => of[Math.floor((i * of.length) / (QUESTIONS / 2))]);
};
const questions = [...pick('in_corpus'), ...pick('left_out')];

/** A corpus folder of `size` passages: the source's files cycled under
 * distinct names, the last one cut to size. An in-corpus question's paragraph
 * is in the 1,000-passage corpus only if its file comes early; the bench
 * reports what it measures, right or wrong answers are bench-qa's business. */
function corpusOf(size) {
  const dir = join(ROOT, '.tools', 'bench-scale', String(size));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'corpus'), { recursive: true });
  let count = 0;
  for (let copy = 0; count < size; copy++) {
    for (const [i, text] of texts.entries()) {
      if (count >= size) break;
      const [title, ...rest] = text.split(/^## /m);
      const take = rest.slice(0, size - count);
      count += take.length;
      writeFileSync(join(dir, 'corpus', `c${copy}-${files[i]}`), [title, ...take].join('## '));
    }
  }
  writeFileSync(join(dir, 'questions.json'), JSON.stringify(questions));
  return dir;
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
/** The local D1 database: its file, and the bytes its pages hold (the file
 * keeps pages a commit freed, for later writes to reuse). */
function sizeOf(dir) {
  const file = readdirSync(dir, { recursive: true }).map((f) => join(dir, f)).find((f) => f.includes('D1') && f.endsWith('.sqlite') && !f.endsWith('metadata.sqlite'));
  const used = execFileSync('python3', ['-c', `import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
print(c.execute('PRAGMA page_size').fetchone()[0]*(c.execute('PRAGMA page_count').fetchone()[0]-c.execute('PRAGMA freelist_count').fetchone()[0]))`, file], { encoding: 'utf8' });
  const wal = `${file}-wal`;
  return { file: statSync(file).size + (existsSync(wal) ? statSync(wal).size : 0), used: Number(used) };
}

async function timed(request) {
  const started = performance.now();
  const res = await request();
  const body = await res.json();
  if (!res.ok) throw new Error(`${res.status} ${JSON.stringify(body.error)}`);
  return { ms: performance.now() - started, body };
}

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
async function measure(size) {
  const dir = corpusOf(size);
  const worker = await startWorker({ vars: { RATE_LIMIT: '100000' } });
  try {
    const started = performance.now();
    const summary = execFileSync(join(ROOT, 'scripts', 'ingest'), ['--url', worker.url, join(dir, 'corpus')], {
      env: { ...process.env, ADMIN_TOKEN }, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8',
    });
    const ingestSeconds = (performance.now() - started) / 1000;
    const commitSeconds = Number(summary.match(/\(commit ([\d.]+) s\)/)?.[1]);
    const health = await (await fetch(`${worker.url}/health`)).json();
    const asks = { in_corpus: [], left_out: [] };
    const searches = [];
    const answered = { in_corpus: 0, left_out: 0 };
    for (const q of questions) {
      const { ms, body } = await timed(() => fetch(`${worker.url}/ask`, {
        method: 'POST', headers: { 'content-type': 'application/json', ...admin }, body: JSON.stringify({ question: q.question }),
      }));
      asks[q.bucket].push(ms);
      if (body.status === 'answered') answered[q.bucket] += 1;
      searches.push((await timed(() => fetch(`${worker.url}/search?q=${encodeURIComponent(q.question)}&k=5`, { headers: admin }))).ms);
    }
    const native = execFileSync(join(ROOT, 'target', 'release', 'examples', 'bench_qa'), ['answer', dir], {
      encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'inherit'],
    }).trim().split('\n').map((l) => JSON.parse(l));
    const cpu = native.map((r) => r.ms - r.lookupMs);
    return {
      size: health.passages,
      ingestSeconds,
      commitSeconds,
      rate: health.passages / ingestSeconds,
      d1: sizeOf(worker.persist),
      askIn: asks.in_corpus,
      askOut: asks.left_out,
      ask: [...asks.in_corpus, ...asks.left_out],
      searches,
      answered,
      cpu,
      lookup: native.map((r) => r.lookupMs),
    };
  } finally {
    await worker.stop();
  }
}

const rows = [];
for (const size of SIZES) {
  console.error(`bench-scale: ${size} passages`);
  rows.push(await measure(size));
}
const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
console.log(`\n${questions.length} questions per size (${QUESTIONS / 2} answerable, ${QUESTIONS / 2} not), asked once each (no cache hits); local engine under workerd`);
console.log('| passages | ingest s (commit) | passages/s | D1 MB (used / file) | /ask p50 ms (in / out) | /ask p99 ms | /search p50 ms | native CPU p50 / p99 ms | native lookup p50 ms | answered (in / out) |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.size} | ${f(r.ingestSeconds)} (${f(r.commitSeconds)}) | ${f(r.rate, 0)} | ${f(r.d1.used / 1e6)} / ${f(r.d1.file / 1e6)} | ${f(percentile(r.ask, 50))} (${f(percentile(r.askIn, 50))} / ${f(percentile(r.askOut, 50))}) | ${f(percentile(r.ask, 99))} | ${f(percentile(r.searches, 50))} | ${f(percentile(r.cpu, 50), 2)} / ${f(percentile(r.cpu, 99), 2)} | ${f(percentile(r.lookup, 50), 2)} | ${r.answered.in_corpus} / ${r.answered.left_out} |`);
}
for (let i = 1; i < rows.length; i++) {
  const [a, b] = [rows[i - 1], rows[i]];
  const exponent = Math.log(percentile(b.ask, 50) / percentile(a.ask, 50)) / Math.log(b.size / a.size);
  console.log(`/ask p50 growth ${a.size} -> ${b.size}: x${f(percentile(b.ask, 50) / percentile(a.ask, 50), 2)}, exponent ${f(exponent, 3)}`);
}
if (rows.length > 1) {
  const [a, b] = [rows[0], rows[rows.length - 1]];
  console.log(`/ask p50 at ${b.size} is ${f(percentile(b.ask, 50) / percentile(a.ask, 50), 2)}x the p50 at ${a.size} (target <= 3x)`);
}
