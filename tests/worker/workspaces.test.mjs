// Workspaces under workerd with local D1: a visitor's own documents, seen only
// with the workspace's secret, each limit refused with its own code and
// nothing stored, and everything deleted when the workspace expires.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, ingest, ask, corpusDocuments, d1, eventually, WORKERS_AI, ADMIN_TOKEN, runCron, createWorkspace, uploadDocument, indexRows } from './harness.mjs';

const LIMITS = {
  WORKSPACE_MAX_FILE_BYTES: '4000',
  WORKSPACE_MAX_CHARS: '2000',
  WORKSPACE_MAX_PASSAGES: '3',
  WORKSPACES_PER_CLIENT_PER_DAY: '3',
  REVIEW_INBOX: 'on',
};
const FERRY = '# Ferry\n\n## Timetable\n\nThe Larkport ferry leaves at 7:15 am from Pier 4.\n';
const FERRY_QUESTION = 'When does the Larkport ferry leave?';

let worker;
before(async () => {
  worker = await startWorker({ vars: LIMITS });
  await ingest(worker.url, corpusDocuments());
});
after(() => worker?.stop());

const withSecret = (secret) => (secret ? { 'workspace-secret': secret } : {});

let clients = 0;
/** POST /workspaces, from its own client unless `ip` is given (three per client per day). */
const create = (url, ip = `198.51.100.${(clients += 1)}`, headers = {}) => createWorkspace(url, ip, headers);
const upload = uploadDocument;

const askIn = (secret, question, extra = {}) => ask(worker.url, question, extra, withSecret(secret));
const passagesOf = (id) => d1(worker.persist, `SELECT count(*) AS n FROM passages WHERE workspace = '${id}'`)[0].n;

/** Rows of a workspace's text outside its passages: cached answers and review items. */
const textOf = (id) => d1(worker.persist, `SELECT (SELECT count(*) FROM answer_cache WHERE workspace = '${id}') AS cached,
  (SELECT count(*) FROM review_queue WHERE workspace = '${id}') AS queued`)[0];

/** A workspace holding the ferry notes, asked one question it answers and one it refuses. */
async function askedWorkspace() {
  const w = (await create(worker.url)).body;
  await upload(worker.url, w.id, w.secret, 'ferry.md', FERRY);
  assert.equal((await askIn(w.secret, FERRY_QUESTION)).body.status, 'answered');
  assert.equal((await askIn(w.secret, 'What is the Larkport ferry fare?', { scope: 'workspace' })).body.status, 'refused');
  await eventually(() => assert.deepEqual(textOf(w.id), { cached: 2, queued: 1 }, 'its answers cached, its refusal queued'));
  return w;
}

test('a new workspace: an id, a secret shown once, and the secret in an HttpOnly cookie', async () => {
  const { status, body, cookie } = await create(worker.url);
  assert.equal(status, 201);
  assert.match(body.id, /^[0-9a-f]{16}$/);
  assert.match(body.secret, /^gws_[0-9a-f]{64}$/);
  assert.deepEqual(body.limits, { maxFileBytes: 4000, maxChars: 2000, maxPassages: 3 });
  assert.ok(body.expiresAt > Date.now() / 1000);
  assert.match(cookie, new RegExp(`^gg_workspace=${body.secret}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=86400$`));
  const [row] = d1(worker.persist, `SELECT secret_hash FROM workspaces WHERE id = '${body.id}'`);
  assert.notEqual(row.secret_hash, body.secret, 'only a hash of the secret is stored');
});

test('a workspace\'s passages are seen only with its secret', async () => {
  const a = (await create(worker.url)).body;
  const b = (await create(worker.url)).body;
  const uploaded = await upload(worker.url, a.id, a.secret, 'Ferry.md', FERRY);
  assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
  assert.deepEqual([uploaded.body.document, uploaded.body.added, uploaded.body.passages], ['ferry', 1, 1]);

  const shared = await askIn(null, FERRY_QUESTION);
  assert.equal(shared.body.status, 'refused', 'not without the secret');
  const mine = await askIn(a.secret, FERRY_QUESTION);
  assert.equal(mine.body.status, 'answered', JSON.stringify(mine.body.stages));
  assert.equal(mine.body.citations[0].passageId, `w${a.id}-ferry-01`);
  assert.match(mine.body.corpusVersion, new RegExp(`\\+w${a.id}:`));
  assert.equal((await askIn(b.secret, FERRY_QUESTION)).body.status, 'refused', 'never in another workspace');
  const viaCookie = await ask(worker.url, FERRY_QUESTION, {}, { cookie: `gg_workspace=${a.secret}` });
  assert.equal(viaCookie.body.status, 'answered', 'the page\'s cookie works as the header does');

  const desk = 'How much does the Dedicated Desk plan cost?';
  assert.equal((await askIn(a.secret, desk)).body.status, 'answered', 'the shared corpus is still there');
  assert.equal((await askIn(a.secret, desk, { scope: 'workspace' })).body.status, 'refused', 'my documents only');
  assert.equal((await askIn(a.secret, FERRY_QUESTION, { scope: 'workspace' })).body.status, 'answered');

  const search = async (secret) => (await (await fetch(`${worker.url}/search?q=Larkport+ferry`, { headers: withSecret(secret) })).json()).results;
  assert.ok((await search(a.secret)).some((r) => r.passageId === `w${a.id}-ferry-01`));
  assert.ok(!(await search(null)).some((r) => r.passageId.startsWith('w')));
});

test('a wrong, foreign or expired secret is a 403, never a silent fallback to the shared corpus', async () => {
  const a = (await create(worker.url)).body;
  const b = (await create(worker.url)).body;
  const wrong = `gws_${'0'.repeat(64)}`;
  for (const [secret, what] of [[wrong, 'wrong'], ['not-a-secret', 'malformed']]) {
    const { status, body } = await askIn(secret, FERRY_QUESTION);
    assert.deepEqual([status, body.error.code], [403, 'workspace_unknown'], what);
  }
  const foreign = await fetch(`${worker.url}/workspaces/${a.id}`, { headers: withSecret(b.secret) });
  assert.equal(foreign.status, 403, 'B\'s secret opens nothing of A');
  const none = await fetch(`${worker.url}/workspaces/${a.id}`);
  assert.equal(none.status, 403);
  d1(worker.persist, `UPDATE workspaces SET expires_at = 1 WHERE id = '${a.id}'`);
  const expired = await askIn(a.secret, FERRY_QUESTION);
  assert.equal(expired.status, 403, 'expired, before the cron has run');
  assert.match(expired.headers.get('set-cookie'), /^gg_workspace=; .*Max-Age=0$/, 'the stale cookie is cleared');
  const noSecret = await askIn(null, FERRY_QUESTION, { scope: 'workspace' });
  assert.deepEqual([noSecret.status, noSecret.body.error.code], [400, 'bad_request']);
});

test('a link to another workspace keeps the visitor\'s cookie; a cross-site POST sets none', async () => {
  const mine = (await create(worker.url)).body;
  const cookie = { cookie: `gg_workspace=${mine.secret}` };
  const link = await fetch(`${worker.url}/workspaces/${'0'.repeat(16)}`, { headers: cookie });
  assert.deepEqual([link.status, (await link.json()).error.code], [403, 'workspace_unknown']);
  assert.equal(link.headers.get('set-cookie'), null, 'a live secret for another id is not cleared');
  assert.equal((await fetch(`${worker.url}/workspaces/${mine.id}`, { headers: cookie })).status, 200, 'and still opens its workspace');
  for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }]) {
    const crossSite = await create(worker.url, undefined, headers);
    assert.equal(crossSite.status, 201, 'the workspace is made, its secret in the reply');
    assert.equal(crossSite.cookie, null, `no cookie replaces the visitor's: ${JSON.stringify(headers)}`);
  }
  const page = await create(worker.url, undefined, { origin: new URL(worker.url).origin, 'sec-fetch-site': 'same-origin' });
  assert.match(page.cookie, /^gg_workspace=gws_/, 'the demo page still gets it');
});

test('each limit refuses with its own code, and nothing is stored', async () => {
  const w = (await create(worker.url)).body;
  const sections = (n) => Array.from({ length: n }, (_, i) => `## Part ${i + 1}\n\nThe dock ${i + 1} opens at noon.`).join('\n\n');
  const cases = [
    ['too large', 'big.md', 'x'.repeat(4001), 'text/markdown', 413, 'file_too_large'],
    ['wrong type', 'pic.png', 'png', 'image/png', 415, 'unsupported_document'],
    ['too many characters', 'long.md', `# Long\n\n${'word '.repeat(500)}`, 'text/markdown', 422, 'too_many_characters'],
    ['too many passages', 'parts.md', sections(4), 'text/markdown', 422, 'too_many_passages'],
    ['no text', 'empty.md', '# Only a title\n', 'text/markdown', 422, 'no_text'],
    ['not a PDF', 'broken.pdf', 'this is not a PDF', 'application/pdf', 422, 'unreadable_pdf'],
  ];
  for (const [what, name, text, type, status, code] of cases) {
    const res = await upload(worker.url, w.id, w.secret, name, text, type);
    assert.deepEqual([res.status, res.body.error?.code], [status, code], what);
  }
  assert.equal(passagesOf(w.id), 0, 'nothing stored');
  const [{ version }] = d1(worker.persist, `SELECT version FROM workspaces WHERE id = '${w.id}'`);
  assert.equal(version, 'empty');

  // Three per client per day (the var); another client still may.
  const ip = '203.0.113.77';
  const made = [];
  for (let i = 0; i < 4; i++) made.push(await create(worker.url, ip));
  assert.deepEqual(made.map((m) => m.status), [201, 201, 201, 429]);
  assert.equal(made[3].body.error.code, 'workspace_limit');
  assert.equal((await create(worker.url, '203.0.113.78')).status, 201);
});

/** A one-page PDF written by hand (a classic xref table with exact offsets)
 * whose page shows `text` in Helvetica: what a word processor would export. */
function pdfOf(text) {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    (() => { const content = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`; return `<< /Length ${content.length} >>\nstream\n${content}\nendstream`; })(),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

test('a PDF\'s text is extracted on the server and answered from; a broken one is refused', async () => {
  const w = (await create(worker.url)).body;
  const up = await upload(worker.url, w.id, w.secret, 'Timetable.pdf', pdfOf('The Larkport ferry leaves at 7:15 am from Pier 4.'), 'application/pdf');
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.deepEqual([up.body.document, up.body.added], ['timetable', 1]);
  const answered = await askIn(w.secret, FERRY_QUESTION);
  assert.equal(answered.body.status, 'answered', JSON.stringify(answered.body.stages));
  // A PDF's passage carries its page: `doc:page:NN`, and `page` in the citation.
  assert.equal(answered.body.citations[0].passageId, `w${w.id}-timetable:1:01`);
  assert.equal(answered.body.citations[0].page, 1);
  assert.equal(answered.body.retrieval.find((r) => r.passageId === `w${w.id}-timetable:1:01`).page, 1);
  const truncated = pdfOf('The Larkport ferry leaves at 7:15 am.').subarray(0, 120);
  const broken = await upload(worker.url, w.id, w.secret, 'broken.pdf', truncated, 'application/pdf');
  assert.deepEqual([broken.status, broken.body.error.code], [422, 'unreadable_pdf']);
  assert.equal(passagesOf(w.id), 1, 'nothing stored for the broken file');
});

test('an upload\'s references are followed within its workspace, never into the shared corpus', async () => {
  const hopping = await startWorker({ vars: { ...LIMITS, TOP_K: '1', HOP_SLOTS: '1', WORKSPACE_MAX_PASSAGES: '10' } });
  try {
    await ingest(hopping.url, corpusDocuments());
    const w = (await create(hopping.url)).body;
    const club = '# Club\n\n## Entry\n\nLarkport members enter the club with their card at any hour. When guests of Larkport members may enter the club is set out in Section 3.\n\n'
      + '## 2 Lockers\n\nLockers are rented by the month.\n\n## 3 Guest hours\n\nGuests of Larkport members may enter the club from 9:00 am to 5:00 pm.\n';
    assert.equal((await upload(hopping.url, w.id, w.secret, 'club.md', club)).status, 200);
    const edges = d1(hopping.persist, `SELECT passage, target FROM passage_refs WHERE passage LIKE 'w${w.id}-%'`);
    assert.deepEqual(edges, [{ passage: `w${w.id}-club-01`, target: `w${w.id}/n:3` }]);
    const question = 'When may guests of Larkport members enter the club?';
    const { body } = await ask(hopping.url, question, { scope: 'workspace' }, withSecret(w.secret));
    const retrieve = body.stages.find((s) => s.name === 'retrieve').detail;
    assert.match(retrieve, new RegExp(`followed 1 reference: w${w.id}-club-01 -> w${w.id}-club-03`));
    assert.equal(body.status, 'answered', JSON.stringify(body.stages));
    assert.deepEqual(body.citations.map((c) => c.passageId), [`w${w.id}-club-03`]);
    // The shared corpus has numbered sections too: none is reached from the upload.
    const all = await ask(hopping.url, question, {}, withSecret(w.secret));
    assert.ok(all.body.retrieval.filter((r) => r.via).every((r) => r.passageId.startsWith(`w${w.id}-`)), JSON.stringify(all.body.retrieval));
    await fetch(`${hopping.url}/workspaces/${w.id}`, { method: 'DELETE', headers: withSecret(w.secret) });
    assert.deepEqual(d1(hopping.persist, `SELECT count(*) AS n FROM passage_refs WHERE passage LIKE 'w${w.id}-%'`), [{ n: 0 }]);
    assert.deepEqual(d1(hopping.persist, `SELECT count(*) AS n FROM passage_anchors WHERE passage LIKE 'w${w.id}-%'`), [{ n: 0 }]);
  } finally {
    await hopping.stop();
  }
});

test('uploading a file of the same name replaces it; a new version is a new cache key', async () => {
  const w = (await create(worker.url)).body;
  await upload(worker.url, w.id, w.secret, 'ferry.md', FERRY);
  const first = await askIn(w.secret, FERRY_QUESTION);
  assert.equal((await askIn(w.secret, FERRY_QUESTION)).body.cache.hit, true);
  const replaced = await upload(worker.url, w.id, w.secret, 'ferry.md', FERRY.replace('7:15 am', '8:40 am'));
  assert.deepEqual([replaced.body.updated, replaced.body.passages], [1, 1]);
  const second = await askIn(w.secret, FERRY_QUESTION);
  assert.equal(second.body.cache.hit, false);
  assert.match(second.body.answer, /8:40 am/);
  assert.notEqual(second.body.corpusVersion, first.body.corpusVersion);
  await upload(worker.url, w.id, w.secret, 'notes.txt', 'The harbour office closes at 6 pm.', 'text/plain');
  const described = await (await fetch(`${worker.url}/workspaces/${w.id}`, { headers: withSecret(w.secret) })).json();
  assert.deepEqual(described.documents, [{ name: 'ferry', passages: 1 }, { name: 'notes', passages: 1 }]);
  const index = indexRows(worker.persist);
  assert.deepEqual([index.rows, index.keyed], [index.passages, index.passages], 'each passage indexed once, under its rowid');
  // A section added, then taken out again: its passage and index row go.
  const grown = await upload(worker.url, w.id, w.secret, 'ferry.md', `${FERRY}\n## Fares\n\nA single crossing costs 4 euros.\n`);
  assert.deepEqual([grown.body.added, grown.body.passages], [1, 3], "the workspace holds three");
  const shrunk = await upload(worker.url, w.id, w.secret, 'ferry.md', FERRY);
  assert.deepEqual([shrunk.body.removed, shrunk.body.passages], [1, 2]);
  assert.match((await askIn(w.secret, FERRY_QUESTION)).body.answer, /7:15 am/);
  const after = indexRows(worker.persist);
  assert.deepEqual([after.rows, after.keyed, after.passages], [index.passages, index.passages, index.passages], 'the removed passage left no index row');
});

test('DELETE removes everything of a workspace and clears the cookie', async () => {
  const w = await askedWorkspace();
  const res = await fetch(`${worker.url}/workspaces/${w.id}`, { method: 'DELETE', headers: withSecret(w.secret) });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('set-cookie'), /^gg_workspace=; .*Max-Age=0$/);
  assert.equal(passagesOf(w.id), 0);
  assert.deepEqual(d1(worker.persist, `SELECT count(*) AS n FROM passages_fts WHERE passages_fts MATCH 'scope : w${w.id}'`), [{ n: 0 }]);
  assert.deepEqual(textOf(w.id), { cached: 0, queued: 0 }, 'no answer or question of it is kept');
  assert.equal((await askIn(w.secret, FERRY_QUESTION)).status, 403);
});

test('the cron deletes expired workspaces, several in one run: rows, index rows, cached answers, review items and the workspace', async () => {
  const w = await askedWorkspace();
  const [other, live] = [(await create(worker.url)).body, (await create(worker.url)).body];
  for (const x of [other, live]) await upload(worker.url, x.id, x.secret, 'ferry.md', FERRY);
  d1(worker.persist, `UPDATE workspaces SET expires_at = 1 WHERE id IN ('${w.id}', '${other.id}')`);
  assert.equal(await runCron(worker.url), 200);
  assert.deepEqual([passagesOf(w.id), passagesOf(other.id), passagesOf(live.id)], [0, 0, 1], 'both expired ones go, the live one stays');
  const index = indexRows(worker.persist);
  assert.deepEqual([index.rows, index.keyed], [index.passages, index.passages], 'their index rows went with them');
  assert.deepEqual(d1(worker.persist, `SELECT count(*) AS n FROM workspaces WHERE id = '${w.id}'`), [{ n: 0 }]);
  assert.deepEqual(d1(worker.persist, `SELECT count(*) AS n FROM passages_fts WHERE passages_fts MATCH 'scope : w${w.id}'`), [{ n: 0 }]);
  assert.deepEqual(textOf(w.id), { cached: 0, queued: 0 });
  assert.ok(d1(worker.persist, 'SELECT count(*) AS n FROM passages WHERE workspace IS NULL')[0].n > 0, 'the shared corpus stays');
});

test('Workers AI engine: an upload\'s embeddings go through the spend cap, and expiry removes its vectors', async () => {
  const w = await startWorker({ ...WORKERS_AI, vars: LIMITS });
  try {
    await ingest(w.url, corpusDocuments());
    const health = async () => (await fetch(`${w.url}/health`)).json();
    const ledger = async () => (await fetch(`${w.url}/admin/spend`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json();
    const vectorsBefore = (await health()).vectors;
    const spentBefore = (await ledger()).spentNeurons;
    const ws = (await create(w.url)).body;
    const up = await upload(w.url, ws.id, ws.secret, 'ferry.md', FERRY);
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.ok(up.body.embeddingNeurons > 0);
    const after = await ledger();
    assert.ok(Math.abs(after.spentNeurons - spentBefore - up.body.embeddingNeurons) < 1e-6, 'charged to the day');
    assert.equal(after.reservedNeurons, 0, 'settled');
    assert.equal((await health()).vectors, vectorsBefore + 1);
    // A long file name still makes ids within Vectorize's 64 bytes (the double refuses longer ones).
    const long = await upload(w.url, ws.id, ws.secret, `${'Larkport harbour timetable '.repeat(4)}.pdf`, pdfOf('The night boat leaves at 11:30 pm.'), 'application/pdf');
    assert.equal(long.status, 200, JSON.stringify(long.body));
    assert.ok(long.body.document.length <= 36, long.body.document);
    assert.equal((await health()).vectors, vectorsBefore + 2);

    const mine = await ask(w.url, FERRY_QUESTION, {}, withSecret(ws.secret));
    assert.ok(mine.body.retrieval.some((r) => r.passageId === `w${ws.id}-ferry-01` && r.vectorRank !== null), 'found by vector too');
    const shared = await ask(w.url, FERRY_QUESTION);
    assert.ok(!shared.body.retrieval.some((r) => r.passageId.startsWith('w')), 'the vector filter keeps it out of the shared scope');

    d1(w.persist, `UPDATE workspaces SET expires_at = 1 WHERE id = '${ws.id}'`);
    assert.equal(await runCron(w.url), 200);
    await eventually(async () => assert.equal((await health()).vectors, vectorsBefore, 'its vectors are gone'));
  } finally {
    await w.stop();
  }
});
