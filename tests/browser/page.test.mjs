// The demo page (GET /) in headless Chromium (Debian's /usr/bin/chromium, driven
// by playwright-core; no browser is downloaded), against the real worker under
// workerd. Turnstile's script is replaced at its URL by a test double, or made
// unreachable, as offline local development finds it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { chromium } from 'playwright-core';
import { startWorker, ingest, ask, corpusDocuments, ROOT, WORKERS_AI } from '../worker/harness.mjs';

const TOKEN = 'XXXX.DUMMY.TOKEN.XXXX';
const TURNSTILE = 'https://challenges.cloudflare.com/';
// wrangler.toml's [env.local] TURNSTILE_SITE_KEY (Cloudflare's always-pass test key).
const LOCAL_SITE_KEY = '1x00000000000000000000AA';
const OFFLINE_NOTE = 'The Turnstile widget could not load (offline?). Local development does not verify it; '
  + 'a deployed worker will refuse questions without it.';
const STAGES = ['validate', 'turnstile', 'rate_limit', 'cache', 'spend', 'screen', 'retrieve',
  'evidence', 'generate', 'decompose', 'entail', 'sanity', 'gate'];

// The test double for api.js: renders nothing, hands out a token shortly after
// render and after every reset, as the real widget does once a challenge passes.
const FAKE_TURNSTILE = `window.turnstile = (() => {
  let options = null;
  const issue = () => setTimeout(() => options && options.callback(${JSON.stringify(TOKEN)}), 10);
  return {
    render(el, opts) { options = opts; window.__rendered = { sitekey: opts.sitekey, action: opts.action }; issue(); return 'w1'; },
    reset() { issue(); },
    getResponse() { return ${JSON.stringify(TOKEN)}; },
    remove() { options = null; },
  };
})();`;

let worker;
let browser;
const resultsOf = new WeakMap();
before(async () => {
  worker = await startWorker();
  const { status } = await ingest(worker.url, corpusDocuments());
  assert.equal(status, 200);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
after(async () => {
  await browser?.close();
  await worker?.stop();
});

/** A fresh context and page on GET /. `turnstile`: 'fake' fulfils api.js with
 * the double, 'offline' aborts it. `health`: replaces /health's turnstile field.
 * `passThrough: false` lets /ask reach the worker untouched (really streamed).
 * `url`: another worker than the shared one. */
async function open(t, { url = worker.url, turnstile = 'fake', health, passThrough = true, viewport = { width: 1200, height: 900 }, ...options } = {}) {
  const context = await browser.newContext({ viewport, ...options });
  t.after(async () => {
    await context.unrouteAll({ behavior: 'ignoreErrors' });
    await context.close();
  });
  await context.route(`${TURNSTILE}**`, (route) => (turnstile === 'fake'
    ? route.fulfill({ contentType: 'text/javascript', body: FAKE_TURNSTILE })
    : route.abort()));
  if (health) {
    await context.route(`${url}/health`, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...(await response.json()), turnstile: health } });
    });
  }
  // Chromium keeps no copy of an event-stream body for the driver to read, so the
  // worker's response passes through here (whole, with its headers) to be read too.
  const results = [];
  if (passThrough) await context.route(`${url}/ask`, async (route) => {
    const response = await route.fetch();
    const text = await response.text();
    const type = response.headers()['content-type'] || '';
    if (response.ok()) results.push({ ...resultOf(type, text), streamed: type.startsWith('text/event-stream') });
    await route.fulfill({ response, body: text });
  });
  const page = await context.newPage();
  resultsOf.set(page, results);
  const problems = [];
  const asks = [];
  const origins = new Set();
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push({ text: m.text(), url: m.location().url });
  });
  page.on('pageerror', (e) => problems.push({ text: `uncaught: ${e.message}`, url: '' }));
  page.on('request', (r) => {
    origins.add(new URL(r.url()).origin);
    if (r.method() === 'POST' && r.url() === `${url}/ask`) asks.push(r.postDataJSON());
  });
  await Promise.all([page.waitForResponse(`${url}/health`), page.goto(`${url}/`)]);
  return { page, problems, asks, origins };
}

/** The AskResponse in an /ask response body: its `result` event, or the JSON. */
function resultOf(type, text) {
  if (!type.startsWith('text/event-stream')) return JSON.parse(text);
  const block = text.split(/\r?\n\r?\n/).find((b) => /^event: ?result$/m.test(b));
  return JSON.parse(block.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n'));
}

/** Runs `act` (a click, a key press) and waits for the page to render the result;
 * returns the AskResponse the worker sent. */
async function asking(page, act) {
  await Promise.all([page.waitForResponse((r) => r.url() === `${worker.url}/ask`), act()]);
  await page.waitForFunction(() => !document.getElementById('ask').disabled && document.querySelector('#outcome .outcome'));
  return resultsOf.get(page).at(-1);
}

const example = (page, kind) => asking(page, () => page.click(`.example[data-expect="${kind}"]`));
const stageRows = (page) => page.$$eval('#stages > li', (rows) => rows.map((r) => ({
  name: r.dataset.stage,
  status: r.querySelector('.stage-status').textContent,
  detail: r.querySelector('.stage-detail').textContent,
})));

test('the three examples: a refusal with its evidence, a cited answer, a blocked injection', async (t) => {
  const { page, problems, asks, origins } = await open(t);
  assert.deepEqual(await page.$$eval('.example', (b) => b.map((x) => x.dataset.expect)), ['refused', 'answered', 'blocked']);
  assert.deepEqual((await stageRows(page)).map((r) => [r.name, r.status]), STAGES.map((s) => [s, 'pending']));
  const health = await (await fetch(`${worker.url}/health`)).json();
  assert.deepEqual(health.turnstile, { siteKey: LOCAL_SITE_KEY, enforced: false });
  await page.waitForFunction(() => window.__rendered);
  assert.deepEqual(await page.evaluate(() => window.__rendered), { sitekey: LOCAL_SITE_KEY, action: 'ask' });
  assert.equal(await page.isHidden('#turnstile-note'), true, 'the widget rendered: no note');

  // The refusal: the stage that refused, what it retrieved, and nothing after it.
  const refused = await example(page, 'refused');
  assert.equal(refused.status, 'refused');
  assert.ok(refused.streamed, 'the worker streamed it (text/event-stream)');
  assert.match(await page.textContent('#outcome .status'), /Refused/);
  assert.match(await page.textContent('#outcome .reason'), /no_evidence The corpus does not cover this question/);
  const rows = await stageRows(page);
  assert.deepEqual(rows.map((r) => r.name), STAGES);
  assert.deepEqual(rows.filter((r) => r.status !== 'not reached').map((r) => r.name), refused.stages.map((s) => s.name),
    'the rows that ran are the result\'s stages, in order');
  const at = rows.findIndex((r) => r.status === 'refused');
  assert.equal(rows[at].name, 'evidence');
  assert.match(rows[at].detail, /never mentions: park, car/);
  assert.ok(rows.slice(at + 1).every((r) => r.status === 'not reached'), JSON.stringify(rows.slice(at + 1)));
  assert.match(await page.textContent('#outcome .stopped'), /Refused at stage evidence: the corpus never mentions: park, car/);
  assert.ok(await page.$eval('details.retrieved', (d) => d.open), 'the retrieved passages are shown, open');
  const passages = await page.$$eval('details.retrieved li .passage-head', (h) => h.map((x) => x.textContent.split(' ')[0]));
  assert.ok(passages.length > 0);
  assert.deepEqual(passages, refused.retrieval.map((r) => r.passageId));
  assert.equal(await page.$('.answer'), null, 'a refusal shows no answer');
  // The README's picture: UPDATE_SCREENSHOT=1 writes it to docs/, otherwise it
  // lands in the temp dir so a test run leaves the tree clean.
  const shots = process.env.UPDATE_SCREENSHOT ? join(ROOT, 'docs') : join(tmpdir(), 'groundgate-screenshots');
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, 'refusal.png'), fullPage: true });

  // The answer: citation markers with their passages, claims, groundedness.
  const answered = await example(page, 'answered');
  assert.equal(answered.status, 'answered');
  assert.match(await page.textContent('#outcome .status'), /Answered/);
  assert.ok((await page.textContent('.answer')).includes(answered.answer));
  const markers = await page.$$('.answer .cite');
  assert.ok(markers.length >= 1);
  assert.equal(await markers[0].textContent(), '[1]');
  await markers[0].hover();
  const popover = await page.textContent('#popover:not([hidden])');
  const cited = answered.citations[0];
  for (const part of [cited.passageId, cited.doc, cited.section, cited.snippet]) assert.ok(popover.includes(part), `${part} in ${popover}`);
  await page.keyboard.press('Escape');
  assert.equal(await page.$('#popover:not([hidden])'), null, 'Escape closes the popover');
  const claims = await page.$$eval('.claim', (c) => c.map((x) => [x.querySelector('.score').textContent, x.querySelector('.badge').textContent]));
  assert.deepEqual(claims, answered.claims.map((c) => [c.score.toFixed(2), c.supported ? '✓ supported' : '✗ not supported']));
  const g = answered.groundedness;
  assert.ok(g.passed && g.mean >= g.threshold);
  assert.match(await page.textContent('.groundedness'), new RegExp(`passed.*mean${g.mean.toFixed(2)} ≥ ${g.threshold.toFixed(2)} ✓`));
  assert.match(await page.textContent('.meta'), /0 model calls, 0 neurons.*cache miss/);
  assert.ok((await stageRows(page)).every((r) => ['passed', 'skipped'].includes(r.status)));

  // The injection: blocked at the screen, nothing retrieved.
  const blocked = await example(page, 'blocked');
  assert.deepEqual([blocked.status, blocked.reason], ['blocked', 'injection']);
  assert.match(await page.textContent('#outcome .status'), /Blocked/);
  assert.match(await page.textContent('#outcome .reason'), /injection/);
  const screened = await stageRows(page);
  assert.equal(screened.find((r) => r.name === 'screen').status, 'blocked');
  assert.ok(screened.slice(STAGES.indexOf('screen') + 1).every((r) => r.status === 'not reached'));
  assert.equal(await page.$('details.retrieved'), null);

  assert.equal(asks.length, 3);
  assert.ok(asks.every((body) => body.token === TOKEN), JSON.stringify(asks));
  assert.deepEqual([...origins].sort(), [worker.url, TURNSTILE.slice(0, -1)].sort(), 'no other external resources');
  assert.deepEqual(problems, []);
});

test('without the Turnstile script (offline), the page says so and still answers', async (t) => {
  const { page, problems, asks } = await open(t, { turnstile: 'offline' });
  await page.waitForSelector('#turnstile-note:not([hidden])');
  assert.equal(await page.textContent('#turnstile-note'), OFFLINE_NOTE);
  await page.fill('#question', 'How much is a day pass?');
  const body = await asking(page, () => page.click('#ask'));
  assert.equal(body.status, 'answered');
  assert.match(await page.textContent('.answer'), /\$35/);
  assert.equal(asks[0].token, undefined, 'no widget, no token');
  // The aborted script is the one console message allowed.
  const failed = problems.filter((p) => p.url.startsWith(TURNSTILE) && /Failed to load resource/.test(p.text));
  assert.ok(failed.length <= 1, JSON.stringify(problems));
  assert.deepEqual(problems.filter((p) => !failed.includes(p)), []);
});

test('keyboard only: Tab to the question, Enter asks, Tab reaches the citation markers', async (t) => {
  // Nothing between the page and the worker here: the answer arrives as a real stream.
  const { page, problems } = await open(t, { passThrough: false });
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'question', 'the first Tab stop is the question');
  await page.keyboard.type('How long is security camera footage kept?');
  await asking(page, () => page.keyboard.press('Enter'));
  const { body } = await ask(worker.url, 'How long is security camera footage kept?'); // the same answer, from the cache
  assert.equal(body.status, 'answered');
  const rows = await stageRows(page);
  assert.deepEqual(rows.map((r) => [r.name, r.status]), STAGES.map((s) => [s, ['turnstile', 'spend'].includes(s) ? 'skipped' : 'passed']));
  assert.match(await page.textContent('#outcome .status'), /Answered/);
  const stops = [];
  for (let i = 0; i < 8 && !stops.includes('cite'); i++) {
    await page.keyboard.press('Tab');
    stops.push(await page.evaluate(() => document.activeElement.id || document.activeElement.className));
  }
  // "Only my documents" is disabled without a workspace, so no stop; then the upload form.
  assert.deepEqual(stops, ['ask', 'example', 'example', 'example', 'file', 'upload', 'cite']);
  assert.match(await page.textContent('#popover:not([hidden])'), new RegExp(body.citations[0].passageId));
  await page.keyboard.press('Escape');
  assert.equal(await page.$('#popover:not([hidden])'), null);
  assert.deepEqual(problems, []);
});

test('on a 375×667 phone: no horizontal scroll; a tap opens a citation; no site key is said plainly', async (t) => {
  const { page, problems } = await open(t, {
    viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true, health: { siteKey: null, enforced: false },
  });
  await page.waitForSelector('#turnstile-note:not([hidden])');
  assert.match(await page.textContent('#turnstile-note'), /Turnstile is not configured/);
  const width = () => page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(await width() <= 375, `scrollWidth ${await width()}`);
  await asking(page, () => page.tap('.example[data-expect="refused"]'));
  assert.ok(await width() <= 375, `refusal: scrollWidth ${await width()}`);
  await asking(page, () => page.tap('.example[data-expect="answered"]'));
  assert.ok(await width() <= 375, `answer: scrollWidth ${await width()}`);
  await page.tap('.answer .cite');
  const box = await page.$eval('#popover:not([hidden])', (p) => p.getBoundingClientRect().toJSON());
  assert.ok(box.left >= 0 && box.right <= 375, JSON.stringify(box));
  assert.deepEqual(problems, []);
});

test('the event-stream reader survives chunks split anywhere, even inside a character', async (t) => {
  const { page, problems } = await open(t);
  const events = await page.evaluate(async () => {
    const text = ': comment\r\nevent: stage\r\ndata: {"name":"validate","detail":"caf\u00e9 \u2026 \u{1F9ED}"}\r\n\r\n'
      + 'event: stage\ndata: {"name":"turnstile"}\n\nevent: result\rdata: {"status":\rdata: "answered"}\r\r';
    const bytes = new TextEncoder().encode(text);
    const seen = [];
    for (const size of [1, 2, 3, 7, bytes.length]) {
      let at = 0;
      const stream = new ReadableStream({
        pull(controller) {
          if (at >= bytes.length) controller.close();
          else controller.enqueue(bytes.slice(at, (at += size)));
        },
      });
      const got = [];
      await window.readEvents(stream, (name, data) => got.push([name, data]));
      seen.push(got);
    }
    return seen;
  });
  const expected = [
    ['stage', '{"name":"validate","detail":"café … 🧭"}'],
    ['stage', '{"name":"turnstile"}'],
    ['result', '{"status":\n"answered"}'],
  ];
  for (const got of events) assert.deepEqual(got, expected);
  assert.deepEqual(problems, []);
});

test('a JSON answer renders as a streamed one does; errors show their code and message', async (t) => {
  const { page, problems } = await open(t);
  await page.fill('#question', 'How much is a day pass?');
  const streamed = await asking(page, () => page.click('#ask'));
  assert.ok(streamed.streamed);
  const seen = async () => [await page.textContent('#result'), await stageRows(page)];
  const before = await seen();
  const { streamed: _, ...body } = streamed;
  await page.route(`${worker.url}/ask`, (route) => route.fulfill({ status: 200, json: body }), { times: 1 });
  await page.click('#ask');
  await page.waitForFunction(() => !document.getElementById('ask').disabled && document.querySelector('#outcome .outcome'));
  assert.deepEqual(await seen(), before);

  await page.route(`${worker.url}/ask`, (route) => route.fulfill({
    status: 429,
    contentType: 'application/json',
    body: JSON.stringify({ error: { code: 'rate_limited', message: 'too many questions; retry in 60 s' }, requestId: 'r1' }),
  }), { times: 1 });
  await page.click('#ask');
  await page.waitForSelector('#outcome .outcome.error');
  assert.match(await page.textContent('#outcome'), /Error 429\s*rate_limited too many questions; retry in 60 s.*request r1/);
  assert.ok((await stageRows(page)).every((r) => r.status === 'not reached'));

  const stage = (name) => `event: stage\ndata: ${JSON.stringify({ name, status: 'passed', ms: 1, detail: `${name} ok` })}\n\n`;
  await page.route(`${worker.url}/ask`, (route) => route.fulfill({
    status: 200,
    contentType: 'text/event-stream',
    body: `${stage('validate')}${stage('turnstile')}event: error\ndata: ${JSON.stringify({ error: { code: 'unavailable', message: 'the database is unavailable' }, requestId: 'r2' })}\n\n`,
  }), { times: 1 });
  await page.click('#ask');
  await page.waitForSelector('#outcome .outcome.error');
  assert.match(await page.textContent('#outcome'), /unavailable the database is unavailable/);
  const rows = await stageRows(page);
  assert.deepEqual(rows.slice(0, 3).map((r) => [r.name, r.status, r.detail]),
    [['validate', 'passed', 'validate ok'], ['turnstile', 'passed', 'turnstile ok'], ['rate_limit', 'not reached', '']]);
  // Chromium itself reports a 4xx fetch on the console; the page adds nothing.
  assert.deepEqual(problems.filter((p) => !/status of 429/.test(p.text)), []);
});

test('the panel shows each stage as it finishes, before the result (a slow model)', async (t) => {
  // The Workers AI engine against its doubles: 🐢 makes the generator take 4 s,
  // past this configuration's AI_TIMEOUT_MS of 3 s. Nothing sits between the page
  // and the worker, so what the panel shows meanwhile is what the stream sent.
  const slow = await startWorker({ ...WORKERS_AI });
  t.after(() => slow.stop());
  assert.equal((await ingest(slow.url, corpusDocuments())).status, 200);
  const { page, problems } = await open(t, { url: slow.url, passThrough: false });
  await page.fill('#question', 'How much does the Dedicated Desk plan cost? 🐢');
  const started = Date.now();
  await page.click('#ask');
  await page.waitForSelector('#stages li[data-stage="evidence"][data-status="passed"]');
  const shownAt = Date.now() - started;
  assert.equal(await page.$('#outcome .outcome'), null, `evidence shown at ${shownAt} ms, with no result yet`);
  assert.equal(await page.getAttribute('#stages li[data-stage="generate"]', 'data-status'), 'pending', 'the model stage is still running');
  await page.waitForSelector('#outcome .outcome', { timeout: 15000 });
  const doneAt = Date.now() - started;
  assert.ok(doneAt - shownAt > 2000, `evidence at ${shownAt} ms, the result at ${doneAt} ms`);
  assert.match(await page.textContent('#outcome .reason'), /model_unavailable/);
  assert.equal(await page.getAttribute('#stages li[data-stage="generate"]', 'data-status'), 'refused');
  assert.deepEqual(problems, []);
});
