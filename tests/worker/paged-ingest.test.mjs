// A paged ingest: nothing is answered before the first commit; a page that
// fails leaves the corpus as it was; running the same command again resumes
// and commits the version a one-shot ingest of the same documents gets.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorker, ingest, ask, corpusDocuments, d1, ROOT, ADMIN_TOKEN } from './harness.mjs';

let worker;
before(async () => { worker = await startWorker(); });
after(() => worker?.stop());

const health = async (url = worker.url) => (await fetch(`${url}/health`)).json();
const admin = (path, body) => fetch(`${worker.url}${path}`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
  body: JSON.stringify(body),
});

const STATIONS = ['Alder', 'Birch', 'Cedar', 'Dogwood', 'Elm', 'Fir', 'Ginkgo', 'Hazel', 'Ironwood', 'Juniper', 'Kapok', 'Larch',
  'Maple', 'Nutmeg', 'Oak', 'Pine', 'Quince', 'Rowan', 'Spruce', 'Tamarack', 'Upas', 'Vine', 'Willow', 'Yew'];
const ROOMS = ['Blue', 'Green', 'Amber', 'Violet'];
const QUESTION = 'When does the Green room at Cedar station open?';

/** 24 documents of 4 sections each: about 20 KB, one page each at --page-kb 1. */
function corpusFolder() {
  const dir = mkdtempSync(join(tmpdir(), 'groundgate-paged-'));
  STATIONS.forEach((station, i) => {
    const sections = ROOMS.map((room, r) =>
      `## The ${room} room at ${station}\n\nThe ${room} room at ${station} station opens at ${r + 6}:00 am and seats ${(i + 1) * 10 + r} people. ` +
      `The front desk of ${station} station hands out its keys.`);
    writeFileSync(join(dir, `station-${String(i + 1).padStart(2, '0')}.md`), `# ${station} station\n\n${sections.join('\n\n')}\n`);
  });
  return dir;
}

/** Runs scripts/ingest against `url`; resolves with its exit code and output. */
function runIngest(url, dir, extra = []) {
  return new Promise((resolve) => {
    execFile(join(ROOT, 'scripts', 'ingest'), ['--url', url, '--page-kb', '1', ...extra, dir], { env: { ...process.env, ADMIN_TOKEN } },
      (error, stdout, stderr) => resolve({ code: error ? error.code : 0, out: stdout + stderr }));
  });
}

/** A proxy to the worker that answers 503 to one page's every attempt. */
async function failingProxy(failPage) {
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    if (req.url.endsWith(`/pages/${failPage}`)) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'unavailable', message: 'a dependency is unavailable; try again later' } }));
      return;
    }
    const upstream = await fetch(`${worker.url}${req.url}`, { method: req.method, headers: req.headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

test('before the first commit: /health is not ready and /ask is 503 not_ready', async () => {
  const h = await health();
  assert.equal(h.ready, false);
  const { status, body } = await ask(worker.url, QUESTION);
  assert.equal(status, 503);
  assert.equal(body.error.code, 'not_ready');
  assert.equal((await fetch(`${worker.url}/search?q=station`)).status, 503, '/search too');
});

test('a failed page leaves the corpus untouched; running again resumes to the one-shot version', async () => {
  const dir = corpusFolder();
  const proxy = await failingProxy(5);
  const failed = await runIngest(proxy.url, dir);
  await proxy.close();
  assert.notEqual(failed.code, 0);
  assert.match(failed.out, /page 6 of \d+: 503 unavailable/);
  assert.match(failed.out, /5 pages are staged; run the same command again to resume/);
  assert.equal((await health()).ready, false, 'half an ingest commits nothing');
  assert.equal((await ask(worker.url, QUESTION)).status, 503);

  const resumed = await runIngest(worker.url, dir);
  assert.equal(resumed.code, 0, resumed.out);
  const pages = Number(resumed.out.match(/(\d+) pages \(5 resumed\)/)?.[1]);
  assert.ok(pages > 6, resumed.out);
  assert.match(resumed.out, /24 documents -> 96 passages/);
  assert.match(resumed.out, /added \d+ \(station-\d\d-01, .* more; --verbose lists all\)/);
  const paged = await health();
  assert.equal(paged.ready, true);
  assert.equal(paged.passages, 96);
  const { body } = await ask(worker.url, QUESTION);
  assert.equal(body.status, 'answered', JSON.stringify(body.stages));
  assert.deepEqual(body.citations.map((c) => c.passageId), ['station-03-02']);

  // The same documents in one request, on a fresh worker: the same version.
  const clean = await startWorker();
  try {
    const docs = corpusDocuments(dir);
    const once = await ingest(clean.url, docs, { vocabulary: null });
    assert.equal(once.status, 200);
    assert.equal(once.body.corpusVersion, paged.corpusVersion);
  } finally {
    await clean.stop();
  }

  // Running it again changes nothing.
  const again = await runIngest(worker.url, dir, ['--verbose']);
  assert.match(again.out, /added 0\n {2}updated 0\n {2}unchanged 96\n {2}removed 0/);
  assert.equal((await health()).corpusVersion, paged.corpusVersion);

  // An edit and a removal, each paged: the term statistics still equal what FTS5 counts.
  writeFileSync(join(dir, 'station-01.md'), '# Alder station\n\n## The Blue room at Alder\n\nThe Blue room at Alder station is closed for repairs.\n');
  rmSync(join(dir, 'station-02.md'));
  const edited = await runIngest(worker.url, dir);
  assert.match(edited.out, /23 documents -> 89 passages/);
  assert.match(edited.out, /removed 7 \(station-01-02, station-01-03, station-01-04, station-02-01, station-02-02, … 2 more/);
  const stats = d1(worker.persist, `SELECT t.term, t.passages, (SELECT count(*) FROM passages_fts WHERE passages_fts MATCH 'terms : "' || t.term || '"') AS live FROM term_stats t`);
  assert.ok(stats.length > 20);
  assert.deepEqual(stats.filter((r) => r.passages !== r.live), [], 'every statistic matches the index');
  assert.equal(stats.find((r) => r.term === 'repair')?.passages, 1);
  assert.equal(stats.find((r) => r.term === 'birch'), undefined, "a removed document's words leave the statistics");

  // Statistics that do not describe the committed corpus are not trusted:
  // with none at all, terms are counted live (used, they would read as
  // words the corpus never mentions, and refuse).
  d1(worker.persist, "DELETE FROM term_stats; UPDATE meta SET value = 'incomplete' WHERE key = 'term_stats'");
  const live = await ask(worker.url, 'When does the Blue room at Cedar station open?');
  assert.equal(live.body.status, 'answered', JSON.stringify(live.body.stages));
  assert.deepEqual(live.body.citations.map((c) => c.passageId), ['station-03-01']);
});

test('pages are checked: unknown ingests, a document in two pages, a stale ingest', async () => {
  const id = 'a'.repeat(32);
  const doc = (name) => ({ name, text: `# ${name}\n\n## Part\n\nThe ${name} text.` });
  assert.equal((await admin(`/admin/ingest/${'b'.repeat(32)}/pages/0`, { documents: [doc('x.md')] })).status, 404);
  assert.equal((await admin(`/admin/ingest/../../x/pages/0`, { documents: [] })).status, 404);
  assert.equal((await admin('/admin/ingest/begin', { ingest: 'NOT-HEX' })).status, 400);
  const begun = await (await admin('/admin/ingest/begin', { ingest: id, documents: ['x.md'] })).json();
  assert.deepEqual(begun.pagesDone, []);
  assert.equal((await admin(`/admin/ingest/${id}/pages/0`, { documents: [doc('x.md')] })).status, 200);
  assert.equal((await admin(`/admin/ingest/${id}/pages/0`, { documents: [doc('x.md')] })).status, 200, 'a page sent twice replaces itself');
  const conflict = await admin(`/admin/ingest/${id}/pages/1`, { documents: [doc('x.md')] });
  assert.equal(conflict.status, 409);
  assert.equal((await conflict.json()).error.code, 'ingest_conflict');
  // Another ingest commits first: this one's pages were diffed against an older corpus.
  await ingest(worker.url, [doc('y.md')], { complete: false, vocabulary: null });
  const stale = await admin(`/admin/ingest/${id}/commit`, {});
  assert.equal(stale.status, 409);
  assert.equal((await stale.json()).error.code, 'ingest_stale');
  assert.equal((await admin(`/admin/ingest/${id}/commit`, {})).status, 404, 'a stale ingest is dropped');
  const unauthorized = await fetch(`${worker.url}/admin/ingest/begin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(unauthorized.status, 401);
});

test('the staleness check is part of the commit\'s transaction: the database refuses a commit on another base', async () => {
  const { corpusVersion } = await health();
  const check = (base) => d1(worker.persist, `INSERT INTO commit_checks (base) VALUES ('${base}'); DELETE FROM commit_checks;`);
  assert.throws(() => check('0000000000000000'), (e) => /ingest_stale/.test(`${e.stdout}${e.stderr}`),
    'a commit that began against another version aborts, whatever passed before it');
  assert.doesNotThrow(() => check(corpusVersion));
  assert.deepEqual(d1(worker.persist, 'SELECT count(*) AS n FROM commit_checks'), [{ n: 0 }]);
});
