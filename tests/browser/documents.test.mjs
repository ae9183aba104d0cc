// "Your documents (private)" on the demo page, in headless Chromium against the
// real worker under workerd: a file uploaded through the file input into a new
// workspace (its secret only ever in the HttpOnly cookie), asked about, asked
// with "Only my documents", the evidence report saved and its audit hash
// verified by scripts/verify-audit, then everything deleted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startWorker, ingest, corpusDocuments, ROOT, ADMIN_TOKEN } from '../worker/harness.mjs';
import { launch, openPage, askOnPage } from './chromium.mjs';

const FERRY = '# Ferry\n\n## Timetable\n\nThe Larkport ferry leaves at 7:15 am from Pier 4.\n';
const FERRY_QUESTION = 'When does the Larkport ferry leave?';
const FERRY_ANSWER = 'The Larkport ferry leaves at 7:15 am from Pier 4.';
const DESK_QUESTION = 'How much does the Dedicated Desk plan cost?';

let worker;
let browser;
before(async () => {
  worker = await startWorker();
  assert.equal((await ingest(worker.url, corpusDocuments())).status, 200);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await worker?.stop();
});

/** The demo page; `init` runs in the page before its scripts. */
const open = (t, options) => openPage(browser, t, worker.url, '/', options);

/** Clicks "Save evidence report", captures the download; returns its name and text. */
async function saveReport(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#save-report')]);
  const html = readFileSync(await download.path(), 'utf8');
  await page.waitForFunction(() => /^Saved /.test(document.getElementById('report-status').textContent));
  return { name: download.suggestedFilename(), html };
}

/** The report's audit hash, verified against the worker's chain by scripts/verify-audit. */
function verifyHash(html) {
  const hash = (html.match(/<dt>Audit hash<\/dt><dd class="mono">([0-9a-f]{64})<\/dd>/) || [])[1];
  assert.ok(hash, 'an audit hash of 64 hex characters');
  const verify = spawnSync(join(ROOT, 'scripts', 'verify-audit'), ['--url', worker.url, '--hash', hash], {
    env: { ...process.env, ADMIN_TOKEN }, encoding: 'utf8',
  });
  assert.equal(verify.status, 0, verify.stdout + verify.stderr);
  assert.match(verify.stdout, new RegExp(`FOUND: ${hash} is row \\d+`));
  return hash;
}

/** A self-contained report: no script, no external resource, everything inline. */
function assertSelfContained(html) {
  assert.doesNotMatch(html, /<script/i, 'no script');
  assert.doesNotMatch(html, /<(link|img|iframe|object|embed)\b/i, 'no external resource');
  assert.doesNotMatch(html, /\b(src|href)\s*=/i, 'nothing loaded from anywhere');
  assert.doesNotMatch(html, /url\(|@import/i, 'nothing loaded by the CSS');
  assert.match(html, /<style>[\s\S]*@media print[\s\S]*<\/style>/, 'inline CSS with print rules');
}

test('upload a document, ask it, only my documents, the evidence report, delete', async (t) => {
  const { context, page, problems, requests } = await open(t);
  assert.equal(await page.isDisabled('#only-mine'), true, 'no workspace: "Only my documents" is off');
  assert.equal(await page.isHidden('#workspace'), true);
  assert.match(await page.textContent('#documents'), /private to this browser.*deleted\s+when they expire/s);

  // A file of a type the worker does not read: its code and message, and the
  // workspace made for it is shown (empty).
  await page.setInputFiles('#file', { name: 'picture.png', mimeType: 'image/png', buffer: Buffer.from('not really a png') });
  const [created] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${worker.url}/workspaces` && r.request().method() === 'POST'),
    page.click('#upload'),
  ]);
  assert.equal(created.status(), 201);
  const { id, secret, expiresAt } = await created.json();
  await page.waitForSelector('#upload-status .upload-error');
  assert.match(await page.textContent('#upload-status'), /Upload failed \(415\): unsupported_document \S/);
  await page.waitForSelector('#workspace:not([hidden])');
  assert.match(await page.textContent('#doc-list'), /No documents yet/);

  // The Markdown file: listed with its passage count and its expiry.
  await page.setInputFiles('#file', { name: 'ferry.md', mimeType: 'text/markdown', buffer: Buffer.from(FERRY) });
  await page.click('#upload');
  await page.waitForSelector('#doc-list li[data-name="ferry"]');
  assert.equal(await page.textContent('#doc-list li[data-name="ferry"]'), 'ferry · 1 passage');
  assert.match(await page.textContent('#upload-status'), /Uploaded ferry\.md as “ferry”: 1 passage \(1 added/);
  assert.match(await page.textContent('#workspace-expiry'), /^Private to this browser; deleted in \d+ (h|min), at .+\.$/);
  assert.equal(await page.isEnabled('#only-mine'), true);
  assert.equal((await page.$$('#delete-docs')).length, 1);
  const uploads = requests.filter((r) => r.url().startsWith(`${worker.url}/workspaces/${id}/documents`));
  assert.deepEqual(uploads.map((r) => [new URL(r.url()).searchParams.get('name'), r.headers()['content-type']]),
    [['picture.png', 'image/png'], ['ferry.md', 'text/markdown']]);

  // The secret is only in the cookie, which the page's scripts cannot read.
  const stored = await page.evaluate(() => JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie]));
  assert.ok(!stored.includes(secret), `the secret is not in storage or document.cookie: ${stored}`);
  assert.deepEqual(JSON.parse(await page.evaluate(() => localStorage.getItem('groundgate.workspace'))), { id, expiresAt });
  const [cookie] = (await context.cookies(worker.url)).filter((c) => c.name === 'gg_workspace');
  assert.ok(cookie, 'Chromium kept the Secure cookie on http://127.0.0.1');
  assert.deepEqual([cookie.value === secret, cookie.httpOnly, cookie.secure, cookie.sameSite], [true, true, true, 'Lax']);

  // The list survives a reload (GET /workspaces/{id}, with the cookie).
  await page.reload();
  await page.waitForSelector('#doc-list li[data-name="ferry"]');

  // The ferry question: answered from the upload, its citation badged.
  const ferry = await askOnPage(page, FERRY_QUESTION);
  assert.equal(ferry.status, 'answered');
  assert.ok((await page.textContent('.answer')).includes(FERRY_ANSWER));
  assert.equal(await page.textContent('.answer .badge.origin-upload'), 'your document');
  const marker = await page.$('.answer .cite');
  assert.match(await marker.getAttribute('aria-label'), /\(your document\)$/);
  // Scrolled into view first: a scroll closes the popover.
  await marker.scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await marker.hover();
  assert.equal(await page.textContent('#popover:not([hidden]) .badge.origin-upload'), 'your document');
  await page.keyboard.press('Escape');
  await page.click('details.retrieved summary');
  assert.equal(await page.textContent('details.retrieved .passage-head .badge.origin-upload'), 'your document');
  const sent = requests.filter((r) => r.url() === `${worker.url}/ask`).map((r) => r.postDataJSON());
  assert.equal(sent.at(-1).scope, undefined, 'unchecked: the shared corpus and my documents');

  // Its evidence report.
  const answered = await saveReport(page);
  assert.equal(answered.name, `groundgate-evidence-${ferry.requestId}.html`);
  for (const part of [FERRY_QUESTION, FERRY_ANSWER, ferry.requestId, 'your document', 'Cited passages (1)', 'Answered',
    'Groundedness: passed', 'Corpus version', 'none (the local engine calls no model)', 'Searched: the shared corpus, with any']) {
    assert.ok(answered.html.includes(part), `${part} in the report`);
  }
  for (const stage of ['validate', 'retrieve', 'evidence', 'generate', 'gate']) {
    assert.match(answered.html, new RegExp(`<tr><td class="nowrap"><code>${stage}</code></td><td class="nowrap">passed</td><td class="nowrap">\\d+</td><td>`), stage);
  }
  assertSelfContained(answered.html);
  verifyHash(answered.html);

  // "Only my documents": the shared corpus's question is refused.
  await page.check('#only-mine');
  const desk = await askOnPage(page, DESK_QUESTION);
  assert.equal(desk.status, 'refused');
  assert.equal(requests.filter((r) => r.url() === `${worker.url}/ask`).at(-1).postDataJSON().scope, 'workspace');
  assert.match(await page.textContent('#outcome .status'), /Refused/);
  const refused = await saveReport(page);
  assert.equal(refused.name, `groundgate-evidence-${desk.requestId}.html`);
  for (const part of [DESK_QUESTION, desk.requestId, 'Refused', 'Reason: <code>', 'Refused at stage <code>',
    'Retrieved passages (', 'Searched: only the documents uploaded in this browser', '<td class="nowrap">not reached</td>']) {
    assert.ok(refused.html.includes(part), `${part} in the refusal's report`);
  }
  assertSelfContained(refused.html);
  verifyHash(refused.html);
  await page.uncheck('#only-mine');

  // At 375 px wide, with the workspace listed and a result shown: no horizontal scroll.
  await page.setViewportSize({ width: 375, height: 667 });
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 375);
  await page.setViewportSize({ width: 1200, height: 900 });

  // Delete: the list is empty, the id forgotten, the cookie cleared.
  await page.click('#delete-docs');
  await page.waitForSelector('#workspace[hidden]', { state: 'attached' });
  assert.equal(await page.$$eval('#doc-list li', (l) => l.length), 0);
  assert.match(await page.textContent('#upload-status'), /Your documents were deleted/);
  assert.equal(await page.evaluate(() => localStorage.getItem('groundgate.workspace')), null);
  assert.equal(await page.isDisabled('#only-mine'), true);
  assert.deepEqual((await context.cookies(worker.url)).filter((c) => c.name === 'gg_workspace'), []);
  assert.equal((await askOnPage(page, FERRY_QUESTION)).status, 'refused', 'the upload is gone');

  // Chromium reports the 415 (and any 404 while the audit row was still being
  // written) on the console; the page adds nothing.
  assert.deepEqual(problems.filter((p) => !/status of (415|404)/.test(p.text)), []);
});

test('a stored workspace the worker no longer knows is forgotten, and the page offers to start again', async (t) => {
  const { page, problems } = await open(t, {
    init: () => localStorage.setItem('groundgate.workspace', JSON.stringify({ id: '0123456789abcdef', expiresAt: Date.now() / 1000 + 3600 })),
  });
  await page.waitForSelector('#upload-status .upload-error');
  assert.match(await page.textContent('#upload-status'), /Your documents are gone.*start again/s);
  assert.equal(await page.isVisible('#upload-status button.start-again'), true);
  assert.equal(await page.evaluate(() => localStorage.getItem('groundgate.workspace')), null);
  assert.equal(await page.isHidden('#workspace'), true);
  // The page still answers without a workspace.
  assert.equal((await askOnPage(page, DESK_QUESTION)).status, 'answered');
  assert.deepEqual(problems.filter((p) => !/status of 403/.test(p.text)), []);
});

test('on a 375 px wide phone: the documents section fits', async (t) => {
  const { page, problems } = await open(t, { viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
  await page.setInputFiles('#file', { name: 'ferry-timetable-with-a-long-name.md', mimeType: 'text/markdown', buffer: Buffer.from(FERRY) });
  await page.tap('#upload');
  await page.waitForSelector('#doc-list li[data-name="ferry-timetable-with-a-long-name"]');
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 375);
  await page.tap('#delete-docs');
  await page.waitForSelector('#workspace[hidden]', { state: 'attached' });
  assert.deepEqual(problems, []);
});
