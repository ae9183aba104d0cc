// The groundgate demo page: asks POST /ask, renders each pipeline stage as it
// arrives (Server-Sent Events, or one JSON body), then the answer or refusal;
// uploads the visitor's own documents to a private workspace, and saves an
// answer's evidence as one self-contained HTML file.
// Response data is corpus text: it only ever reaches the page as textContent
// (and the evidence report, HTML-escaped). The workspace's secret never reaches
// this script: the worker sets it as an HttpOnly cookie, sent with same-origin
// requests; only the workspace's id and expiry are kept, in localStorage.
'use strict';

const STAGES = ['validate', 'turnstile', 'rate_limit', 'cache', 'spend', 'screen', 'retrieve',
  'evidence', 'generate', 'decompose', 'entail', 'sanity', 'gate'];
const STATUS_ICON = { passed: '✓', refused: '✗', skipped: '–', blocked: '⛔', pending: '○', 'not reached': '·' };
const OUTCOME = { answered: 'Answered', refused: 'Refused', blocked: 'Blocked' };
const REASONS = {
  no_evidence: 'The corpus does not cover this question: it names something the corpus never mentions, or the retrieved passages cover too little of it.',
  below_threshold: 'The claims are not supported strongly enough by the retrieved passages.',
  off_question: 'The supported sentences found do not answer this question.',
  model_unavailable: 'A model or the vector index failed or timed out, so nothing unverified is shown.',
  model_output_invalid: "The model's output could not be read, even after one repair request.",
  injection: "The question tries to override the assistant's instructions.",
  off_topic: 'The request is not a question this corpus could answer.',
};
// Where a passage came from, when it is not the shared corpus.
const ORIGIN_BADGE = { upload: 'your document', operator: 'operator-approved' };
const WORKSPACE_KEY = 'groundgate.workspace';
const DOCUMENT_TYPES = { md: 'text/markdown', markdown: 'text/markdown', txt: 'text/plain', pdf: 'application/pdf' };
const TURNSTILE_URL = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';
const OFFLINE_NOTE = 'The Turnstile widget could not load (offline?). Local development does not verify it; ' +
  'a deployed worker will refuse questions without it.';

const $ = (id) => document.getElementById(id);
const form = $('ask-form');
const input = $('question');
const askButton = $('ask');
const popover = $('popover');
const onlyMine = $('only-mine');
let widgetId = null;
let token = null;
let tokenWaiter = null;
let busy = false;
/** The last AskResponse shown, with its question, its scope and when it arrived. */
let shown = null;
/** The last GET /health body read (for the evidence report). */
let lastHealth = null;

/** An element with optional class and text (always textContent). */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** The badge of a non-corpus origin (a span), or null for the shared corpus. */
function originBadge(origin) {
  const label = ORIGIN_BADGE[origin];
  if (!label) return null;
  const badge = el('span', `badge origin origin-${origin}`, label);
  badge.dataset.origin = origin;
  return badge;
}

/** Response-shaped JSON, or null. */
async function jsonOf(res) {
  return res.json().catch(() => null);
}

/** `{code, message}` of an error response (or a stand-in for one that is not JSON). */
function errorOf(body, httpStatus) {
  return (body && body.error) || { code: `http_${httpStatus}`, message: 'The worker answered with an unexpected response.' };
}

function turnstileNote(text) {
  const note = $('turnstile-note');
  note.textContent = text;
  note.hidden = false;
}

function loadScript(src, timeoutMs) {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    const timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
    script.src = src;
    script.async = true;
    script.onload = () => { clearTimeout(timer); resolve(); };
    script.onerror = () => { clearTimeout(timer); reject(new Error('load failed')); };
    document.head.append(script);
  });
}

function gotToken(value) {
  token = value;
  if (tokenWaiter) tokenWaiter(value);
  tokenWaiter = null;
}

async function setupTurnstile() {
  let config = { siteKey: null, enforced: false };
  try {
    const health = await (await fetch('/health', { headers: { accept: 'application/json' } })).json();
    if (health && health.turnstile) config = health.turnstile;
    if (health && health.status) lastHealth = health;
  } catch {
    // No /health: treat it as "not configured"; /ask will say what it needs.
  }
  if (!config.siteKey) {
    turnstileNote(config.enforced
      ? 'Turnstile is not configured for this page, and this worker requires it: questions will be refused.'
      : 'Turnstile is not configured on this worker, so questions are not verified (local development).');
    return;
  }
  try {
    await loadScript(TURNSTILE_URL, 5000);
    if (!window.turnstile) throw new Error('no turnstile object');
    widgetId = window.turnstile.render($('turnstile'), {
      sitekey: config.siteKey,
      action: 'ask',
      callback: gotToken,
      'expired-callback': () => { token = null; },
      'error-callback': () => { token = null; return true; },
    });
  } catch {
    widgetId = null;
    turnstileNote(OFFLINE_NOTE);
  }
}

/** The current token; waits (up to `ms`) for one if a widget is solving. */
function nextToken(ms) {
  if (token || widgetId === null) return Promise.resolve(token);
  return new Promise((resolve) => {
    tokenWaiter = resolve;
    setTimeout(() => resolve(token), ms);
  });
}

/** A Turnstile token for one request as its header, for the routes whose
 * body is not JSON (workspaces, uploads); the widget then solves afresh. */
async function turnstileHeader() {
  const value = await nextToken(10000);
  resetTurnstile();
  return value ? { 'cf-turnstile-response': value } : {};
}

function resetTurnstile() {
  token = null;
  if (widgetId === null) return;
  try { window.turnstile.reset(widgetId); } catch { /* the next ask says what went wrong */ }
}

function stageRow(name) {
  const row = el('li', 'stage');
  row.dataset.stage = name;
  const head = el('div', 'stage-head');
  const icon = el('span', 'icon');
  icon.setAttribute('aria-hidden', 'true');
  head.append(icon, el('span', 'stage-name', name), el('span', 'stage-status'), el('span', 'stage-ms'));
  row.append(head, el('p', 'stage-detail'));
  setStage(row, 'pending', null, '');
  return row;
}

function setStage(row, status, ms, detail) {
  row.dataset.status = status;
  row.querySelector('.icon').textContent = STATUS_ICON[status] || '?';
  row.querySelector('.stage-status').textContent = status;
  row.querySelector('.stage-ms').textContent = ms === null ? '' : `${ms} ms`;
  row.querySelector('.stage-detail').textContent = detail || '';
}

function resetStages() {
  $('stages').replaceChildren(...STAGES.map(stageRow));
}

function markStage(stage) {
  const list = $('stages');
  let row = list.querySelector(`[data-stage="${CSS.escape(stage.name)}"]`);
  if (!row) row = list.appendChild(stageRow(stage.name));
  setStage(row, stage.status, stage.ms, stage.detail);
}

function finishStages() {
  for (const row of $('stages').children) {
    if (row.dataset.status === 'pending') setStage(row, 'not reached', null, '');
  }
}

let popoverOwner = null;

// A PDF passage's page, as the worker reports it.
function pageOf(passage) {
  return passage.page ? `, page ${passage.page}` : '';
}

function showPopover(button, citation, n) {
  const head = el('p', 'pop-head', `[${n}] ${citation.passageId}`);
  const badge = originBadge(citation.origin);
  if (badge) head.append(' ', badge);
  popover.replaceChildren(
    head,
    el('p', 'pop-where', `${citation.doc} › ${citation.section}${pageOf(citation)}`),
    el('blockquote', 'pop-snippet', citation.snippet),
  );
  popover.hidden = false;
  popoverOwner = button;
  button.setAttribute('aria-expanded', 'true');
  button.setAttribute('aria-describedby', 'popover');
  const r = button.getBoundingClientRect();
  const width = Math.min(360, document.documentElement.clientWidth - 16);
  popover.style.width = `${width}px`;
  popover.style.left = `${Math.max(8, Math.min(r.left, document.documentElement.clientWidth - width - 8))}px`;
  const below = r.bottom + 6 + popover.offsetHeight <= window.innerHeight;
  popover.style.top = `${below ? r.bottom + 6 : Math.max(8, r.top - 6 - popover.offsetHeight)}px`;
}

function hidePopover() {
  if (!popoverOwner) return;
  popoverOwner.setAttribute('aria-expanded', 'false');
  popoverOwner.removeAttribute('aria-describedby');
  popoverOwner = null;
  popover.hidden = true;
}

function marker(citation, n) {
  const button = el('button', 'cite', `[${n}]`);
  button.type = 'button';
  const origin = ORIGIN_BADGE[citation.origin];
  button.setAttribute('aria-label', `Source ${n}: ${citation.passageId}${origin ? ` (${origin})` : ''}`);
  button.setAttribute('aria-expanded', 'false');
  button.setAttribute('aria-controls', 'popover');
  const show = () => showPopover(button, citation, n);
  for (const type of ['mouseenter', 'focus', 'click']) button.addEventListener(type, show);
  button.addEventListener('mouseleave', () => { if (document.activeElement !== button) hidePopover(); });
  button.addEventListener('blur', hidePopover);
  return button;
}

document.addEventListener('keydown', (e) => { if (e.key === 'Escape') hidePopover(); });
document.addEventListener('scroll', hidePopover, { passive: true });

/** The answer with its [n] markers as buttons that open their passage. The
 * worker puts them after each sentence, for the verified passages of that
 * sentence's claims: `n` is the citation's place in `citations`. */
function answerWithMarkers(body) {
  const p = el('p', 'answer');
  const parts = (body.answer || '').split(/\[(\d+)\]/);
  parts.forEach((part, i) => {
    if (i % 2 === 0) {
      if (part) p.append(part);
      return;
    }
    const n = Number(part);
    const citation = body.citations[n - 1];
    if (!citation) {
      p.append(`[${part}]`);
      return;
    }
    p.append(marker(citation, n));
    const badge = originBadge(citation.origin);
    if (badge) {
      badge.setAttribute('aria-hidden', 'true'); // the marker's label says it
      p.append(badge);
    }
  });
  return p;
}

function meter(label, value, bar) {
  const row = el('div', 'meter');
  const ok = value >= bar;
  const track = el('span', 'track');
  const fill = el('span', `fill ${ok ? 'ok' : 'low'}`);
  fill.style.width = `${Math.max(0, Math.min(1, value)) * 100}%`;
  const mark = el('span', 'mark');
  mark.style.left = `${Math.max(0, Math.min(1, bar)) * 100}%`;
  mark.title = `threshold ${bar.toFixed(2)}`;
  track.append(fill, mark);
  track.setAttribute('aria-hidden', 'true');
  row.append(el('span', 'meter-label', label), track, el('span', 'meter-value', `${value.toFixed(2)} ${ok ? '≥' : '<'} ${bar.toFixed(2)} ${ok ? '✓' : '✗'}`));
  return row;
}

function groundedness(g) {
  const box = el('div', 'groundedness');
  box.append(el('h3', null, `Groundedness: ${g.passed ? '✓ passed' : '✗ not passed'}`), meter('mean', g.mean, g.threshold),
    meter('weakest claim', g.min, g.minClaim), meter('question coverage', g.coverage, g.minCoverage));
  return box;
}

function claimsList(claims) {
  const box = el('div', 'claims');
  box.append(el('h3', null, `Claims (${claims.length})`));
  const list = el('ul');
  for (const c of claims) {
    const item = el('li', 'claim');
    const badge = el('span', `badge ${c.supported ? 'ok' : 'low'}`, c.supported ? '✓ supported' : '✗ not supported');
    item.append(el('span', 'score', c.score.toFixed(2)), badge, el('span', 'claim-text', c.text));
    if (c.supportingPassageIds.length) item.append(el('span', 'muted', ` (${c.supportingPassageIds.join(', ')})`));
    list.append(item);
  }
  box.append(list);
  return box;
}

function retrievedList(retrieval, open) {
  const box = el('details', 'retrieved');
  box.open = open;
  box.append(el('summary', null, `Retrieved passages (${retrieval.length})`));
  const list = el('ol');
  for (const r of retrieval) {
    const item = el('li');
    const head = el('p', 'passage-head', `${r.passageId} · ${r.doc} › ${r.section}${pageOf(r)} · score ${r.score.toFixed(3)}`);
    const badge = originBadge(r.origin);
    if (badge) head.append(' ', badge);
    item.append(head, el('p', 'passage-text', r.text));
    list.append(item);
  }
  box.append(list);
  return box;
}

function showResult(body, question, scope) {
  shown = { body, question, scope, at: new Date() };
  for (const stage of body.stages) markStage(stage);
  finishStages();
  hidePopover();
  const outcome = el('div', `outcome ${body.status}`);
  outcome.append(el('p', 'status', `${STATUS_ICON[body.status === 'answered' ? 'passed' : body.status]} ${OUTCOME[body.status] || body.status}`));
  if (body.reason) {
    const why = el('p', 'reason');
    why.append(el('code', null, body.reason), ` ${REASONS[body.reason] || ''}`);
    outcome.append(why);
  }
  const stopped = body.stages.find((s) => s.status === 'refused' || s.status === 'blocked');
  if (stopped && body.status !== 'answered') {
    const at = el('p', 'stopped');
    at.append(`${body.status === 'blocked' ? 'Blocked' : 'Refused'} at stage `, el('code', null, stopped.name), `: ${stopped.detail}`);
    outcome.append(at);
  }
  if (body.answer) outcome.append(answerWithMarkers(body));
  $('outcome').replaceChildren(outcome);

  const details = [];
  if (body.claims.length) details.push(claimsList(body.claims));
  if (body.groundedness) details.push(groundedness(body.groundedness));
  if (body.retrieval.length) details.push(retrievedList(body.retrieval, body.status !== 'answered'));
  const cache = body.cache.hit ? `hit${body.cache.tier ? ` (${body.cache.tier})` : ''}` : 'miss';
  details.push(el('p', 'meta', `Cost: ${body.cost.calls} model calls, ${body.cost.neurons} neurons ($${Number(body.cost.usd.toPrecision(2))}) · ` +
    `cache ${cache} · engine ${body.engine.ai}/${body.engine.index} · corpus ${body.corpusVersion} · request ${body.requestId}`));
  details.push(reportBox());
  $('details').replaceChildren(...details);
}

function showError(body, httpStatus) {
  shown = null;
  finishStages();
  const error = errorOf(body, httpStatus);
  const box = el('div', 'outcome error');
  box.append(el('p', 'status', `⚠ Error${httpStatus ? ` ${httpStatus}` : ''}`));
  const line = el('p', 'reason');
  line.append(el('code', null, error.code), ` ${error.message}`);
  box.append(line);
  if (body && body.requestId) box.append(el('p', 'meta', `request ${body.requestId}`));
  $('outcome').replaceChildren(box);
  $('details').replaceChildren();
  if (error.code === 'workspace_unknown') workspaceGone();
}

/** Reads a text/event-stream body, calling onEvent(name, data) per event;
 * chunks may split anywhere, even inside a line or a UTF-8 sequence. */
async function readEvents(stream, onEvent) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let name = 'message';
  let data = [];
  for (;;) {
    const { value, done } = await reader.read();
    buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
    const lines = buffer.split(/\r\n|\r(?!$)|\n/);
    buffer = done ? '' : lines.pop();
    for (const line of lines) {
      if (line === '') {
        if (data.length) onEvent(name, data.join('\n'));
        name = 'message';
        data = [];
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') name = text;
        else if (field === 'data') data.push(text);
      }
    }
    if (done) break;
  }
  if (data.length) onEvent(name, data.join('\n'));
}

async function ask(question) {
  if (busy) return;
  busy = true;
  askButton.disabled = true;
  hidePopover();
  resetStages();
  $('outcome').replaceChildren(el('p', 'muted', 'Asking…'));
  $('details').replaceChildren();
  try {
    const body = { question, token: (await nextToken(10000)) || undefined };
    if (onlyMine.checked && !onlyMine.disabled) body.scope = 'workspace';
    resetTurnstile();
    const res = await fetch('/ask', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });
    const type = res.headers.get('content-type') || '';
    if (res.ok && type.startsWith('text/event-stream') && res.body) {
      let ended = false;
      await readEvents(res.body, (event, data) => {
        const parsed = JSON.parse(data);
        if (event === 'stage') markStage(parsed);
        else if (event === 'result') { ended = true; showResult(parsed, question, body.scope); }
        else if (event === 'error') { ended = true; showError(parsed, null); }
      });
      if (!ended) showError({ error: { code: 'stream_ended', message: 'The stream ended before a result.' } }, null);
    } else {
      const parsed = await res.json().catch(() => null);
      if (res.ok && parsed && parsed.status) showResult(parsed, question, body.scope);
      else showError(parsed, res.status);
    }
  } catch (e) {
    showError({ error: { code: 'network', message: `The request failed: ${e.message}` } }, null);
  } finally {
    busy = false;
    askButton.disabled = false;
  }
}

form.addEventListener('submit', (e) => {
  e.preventDefault();
  const question = input.value.trim();
  if (question) ask(question);
  else $('outcome').replaceChildren(el('p', 'muted', 'Type a question first.'));
});

input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    form.requestSubmit();
  }
});

for (const button of document.querySelectorAll('.example')) {
  button.addEventListener('click', () => {
    input.value = button.dataset.question;
    form.requestSubmit();
  });
}

// ---- Your documents: a private workspace ---------------------------------

/** `{id, expiresAt}` of this browser's workspace, or null (never its secret). */
function storedWorkspace() {
  try {
    const saved = JSON.parse(localStorage.getItem(WORKSPACE_KEY) || 'null');
    if (saved && typeof saved.id === 'string' && /^[0-9a-f]{1,64}$/.test(saved.id) && Number.isFinite(saved.expiresAt)) {
      if (saved.expiresAt > Date.now() / 1000) return saved;
    }
  } catch { /* unreadable or unavailable storage: no workspace */ }
  forgetWorkspace();
  return null;
}

function rememberWorkspace(id, expiresAt) {
  try { localStorage.setItem(WORKSPACE_KEY, JSON.stringify({ id, expiresAt })); } catch { /* kept for this page only */ }
}

function forgetWorkspace() {
  try { localStorage.removeItem(WORKSPACE_KEY); } catch { /* nothing kept */ }
}

/** A status line under the upload form: `kind` is 'ok', 'error' or 'busy'. */
function uploadStatus(kind, ...parts) {
  const line = el('p', `upload-${kind}`);
  line.append(...parts);
  $('upload-status').replaceChildren(...(parts.length ? [line] : []));
  return line;
}

function uploadError(error, httpStatus) {
  return uploadStatus('error', `⚠ Upload failed${httpStatus ? ` (${httpStatus})` : ''}: `, el('code', null, error.code), ` ${error.message}`);
}

/** "in 23 h", "in 5 min": how long until unix time `at`. */
function inTime(at) {
  const minutes = Math.max(0, Math.round((at - Date.now() / 1000) / 60));
  return minutes >= 120 ? `in ${Math.round(minutes / 60)} h` : `in ${minutes} min`;
}

/** Shows the workspace's documents, or nothing when there is none. */
function renderWorkspace(described) {
  const box = $('workspace');
  onlyMine.disabled = !described;
  if (!described) onlyMine.checked = false;
  $('only-mine-hint').textContent = described ? '(searches only the documents you uploaded)' : '(upload a document first)';
  if (!described) {
    box.hidden = true;
    $('doc-list').replaceChildren();
    return;
  }
  const expires = new Date(described.expiresAt * 1000);
  $('workspace-expiry').textContent = `Private to this browser; deleted ${inTime(described.expiresAt)}, at ${expires.toLocaleString()}.`;
  const items = described.documents.map((d) => {
    const item = el('li', 'doc');
    item.dataset.name = d.name;
    item.append(el('span', 'doc-name', d.name), el('span', 'doc-passages', ` · ${d.passages} ${d.passages === 1 ? 'passage' : 'passages'}`));
    return item;
  });
  $('doc-list').replaceChildren(...(items.length ? items : [el('li', 'muted', 'No documents yet.')]));
  box.hidden = false;
}

/** The workspace is gone (expired, deleted elsewhere, or its cookie is): forget it. */
function workspaceGone() {
  forgetWorkspace();
  renderWorkspace(null);
  const again = el('button', 'start-again', 'Start again');
  again.type = 'button';
  // A chosen file is uploaded into a new workspace; otherwise, choose one.
  again.addEventListener('click', () => {
    if ($('file').files.length) upload();
    else { uploadStatus('ok'); $('file').focus(); }
  });
  uploadStatus('error', '⚠ Your documents are gone: they expired or were deleted, or this browser no longer holds their key. ',
    'Upload a file to start again with a new private workspace. ', again);
}

/** GET /workspaces/{id}: the documents, or null when there is no workspace. */
async function loadWorkspace() {
  const saved = storedWorkspace();
  if (!saved) { renderWorkspace(null); return null; }
  try {
    const res = await fetch(`/workspaces/${encodeURIComponent(saved.id)}`, { headers: { accept: 'application/json' } });
    const body = await jsonOf(res);
    if (res.status === 403 || res.status === 404) { workspaceGone(); return null; }
    if (!res.ok || !body) { uploadError(errorOf(body, res.status), res.status); return null; }
    rememberWorkspace(body.id, body.expiresAt);
    renderWorkspace(body);
    return body;
  } catch (e) {
    uploadError({ code: 'network', message: `Your documents could not be listed: ${e.message}` }, null);
    return null;
  }
}

/** POST /workspaces: a new workspace (its secret arrives only as the cookie). */
async function createWorkspace() {
  const res = await fetch('/workspaces', { method: 'POST', headers: { accept: 'application/json', ...(await turnstileHeader()) } });
  const body = await jsonOf(res);
  if (res.status !== 201 || !body || !body.id) return { error: errorOf(body, res.status), status: res.status };
  rememberWorkspace(body.id, body.expiresAt);
  return { id: body.id };
}

function documentType(file) {
  const ext = (file.name.match(/\.([^.]+)$/) || [])[1];
  return DOCUMENT_TYPES[(ext || '').toLowerCase()] || file.type || 'application/octet-stream';
}

let uploading = false;

async function upload() {
  const file = $('file').files[0];
  if (!file) { uploadStatus('error', 'Choose a file first.'); return; }
  if (uploading) return;
  uploading = true;
  $('upload').disabled = true;
  uploadStatus('busy', `Uploading ${file.name}…`);
  try {
    let saved = storedWorkspace();
    if (!saved) {
      const created = await createWorkspace();
      if (created.error) { uploadError(created.error, created.status); return; }
      saved = { id: created.id };
    }
    const res = await fetch(`/workspaces/${encodeURIComponent(saved.id)}/documents?name=${encodeURIComponent(file.name)}`, {
      method: 'POST', headers: { 'content-type': documentType(file), accept: 'application/json', ...(await turnstileHeader()) }, body: file,
    });
    const body = await jsonOf(res);
    if (res.status === 403 && body && body.error && body.error.code === 'workspace_unknown') { workspaceGone(); return; }
    if (!res.ok || !body || !body.document) {
      await loadWorkspace(); // a workspace made for this upload is shown even when the file is refused
      uploadError(errorOf(body, res.status), res.status);
      return;
    }
    $('file').value = '';
    await loadWorkspace();
    uploadStatus('ok', `✓ Uploaded ${file.name} as “${body.document}”: ${body.passages} ${body.passages === 1 ? 'passage' : 'passages'} `
      + `(${body.added} added, ${body.updated} updated, ${body.unchanged} unchanged, ${body.removed} removed).`);
  } catch (e) {
    uploadError({ code: 'network', message: `The upload failed: ${e.message}` }, null);
  } finally {
    uploading = false;
    $('upload').disabled = false;
  }
}

async function deleteWorkspace() {
  const saved = storedWorkspace();
  if (!saved) { renderWorkspace(null); return; }
  const button = $('delete-docs');
  button.disabled = true;
  try {
    const res = await fetch(`/workspaces/${encodeURIComponent(saved.id)}`, { method: 'DELETE', headers: { accept: 'application/json' } });
    const body = await jsonOf(res);
    if (res.ok || res.status === 403 || res.status === 404) {
      forgetWorkspace();
      renderWorkspace(null);
      uploadStatus('ok', res.ok ? '✓ Your documents were deleted.' : 'Your documents were already gone.');
    } else {
      uploadError(errorOf(body, res.status), res.status);
    }
  } catch (e) {
    uploadError({ code: 'network', message: `The deletion failed: ${e.message}` }, null);
  } finally {
    button.disabled = false;
  }
}

$('upload-form').addEventListener('submit', (e) => {
  e.preventDefault();
  upload();
});
$('delete-docs').addEventListener('click', deleteWorkspace);

// ---- The evidence report ---------------------------------------------------

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text (of any type) made safe for HTML content and quoted attributes. */
const esc = (value) => String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);
const originName = (origin) => ORIGIN_BADGE[origin] || 'shared corpus';
const fixed = (n, digits) => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(digits) : '–');

const REPORT_CSS = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 24px auto; max-width: 900px; padding: 0 16px; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2330; background: #fff; overflow-wrap: anywhere; }
h1 { font-size: 1.4rem; margin: 0 0 4px; }
h2 { font-size: 1.1rem; margin: 20px 0 6px; border-bottom: 1px solid #d8dde6; padding-bottom: 2px; }
h3 { font-size: 0.95rem; margin: 10px 0 2px; }
p { margin: 4px 0; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
.muted { color: #5b6474; }
.status { font-size: 1.2rem; font-weight: 700; }
.answered { color: #1c7c3a; }
.refused, .blocked { color: #b3261e; }
.answer { background: #f1f6ff; border-left: 4px solid #1f5fbf; padding: 8px 12px; }
.question { background: #f6f7f9; border-left: 4px solid #9aa3b2; padding: 8px 12px; white-space: pre-wrap; }
table { border-collapse: collapse; width: 100%; margin: 4px 0; }
th, td { border: 1px solid #d8dde6; padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: #f6f7f9; white-space: nowrap; }
.nowrap { white-space: nowrap; overflow-wrap: normal; }
.passage { margin: 8px 0; padding: 4px 0 4px 10px; border-left: 3px solid #d8dde6; }
.passage-text { white-space: pre-wrap; margin: 4px 0 0; }
.origin { display: inline-block; font-size: 0.8rem; font-weight: 600; border: 1px solid #5b6474; border-radius: 10px; padding: 0 8px; }
.origin-upload { color: #5b2d9e; border-color: #5b2d9e; }
.origin-operator { color: #8a4b00; border-color: #8a4b00; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 4px 0; }
dt { font-weight: 600; }
dd { margin: 0; }
@media print {
  @page { margin: 15mm; }
  body { margin: 0; max-width: none; font-size: 10.5pt; }
  h2 { break-after: avoid; }
  .passage, tr, dl { break-inside: avoid; }
  .answer, .question, th { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}`;

function passageHtml(p) {
  return `<div class="passage"><p><code>${esc(p.passageId)}</code> · ${esc(p.doc)} › ${esc(p.section)}${esc(pageOf(p))}`
    + `${p.score !== undefined ? ` · score ${esc(fixed(p.score, 3))}` : ''}`
    + ` · <span class="origin origin-${esc(p.origin || 'corpus')}">${esc(originName(p.origin))}</span></p>`
    + `<p class="passage-text">${esc(p.text)}</p></div>`;
}

/** The whole report: one HTML document, its CSS inline, no script, no external resource. */
function evidenceReport({ body, question, scope, at }, health, proof, origin) {
  const refusedAt = body.stages.find((s) => s.status === 'refused' || s.status === 'blocked');
  const ran = new Set(body.stages.map((s) => s.name));
  const stageRows = body.stages.map((s) => `<tr><td class="nowrap"><code>${esc(s.name)}</code></td><td class="nowrap">${esc(s.status)}</td>`
    + `<td class="nowrap">${esc(s.ms)}</td><td>${esc(s.detail)}</td></tr>`)
    .concat(STAGES.filter((n) => !ran.has(n)).map((n) => `<tr><td class="nowrap"><code>${esc(n)}</code></td><td class="nowrap">not reached</td><td></td><td></td></tr>`));
  const texts = new Map(body.retrieval.map((r) => [r.passageId, r]));
  const cited = body.citations.map((c, i) => {
    const full = texts.get(c.passageId);
    return `<h3>[${i + 1}]</h3>${passageHtml({ ...c, text: full ? full.text : c.snippet, origin: c.origin || (full && full.origin) })}`
      + (full ? '' : '<p class="muted">(the cited sentence; the passage was not among the retrieved ones)</p>');
  });
  const claims = body.claims.map((c) => `<tr><td class="mono nowrap">${esc(fixed(c.score, 2))}</td>`
    + `<td class="nowrap">${c.supported ? 'supported' : 'not supported'}</td><td>${esc(c.text)}</td>`
    + `<td><code>${esc(c.supportingPassageIds.join(', '))}</code></td></tr>`);
  const g = body.groundedness;
  const models = health && health.models
    ? Object.entries(health.models).map(([k, v]) => `${esc(k)}: <code>${esc(v)}</code>`).join('<br>')
    : 'none (the local engine calls no model)';
  const audit = proof
    ? `<dl><dt>Audit row</dt><dd class="mono">${esc(proof.seq)}</dd>`
      + `<dt>Audit hash</dt><dd class="mono">${esc(proof.hash)}</dd>`
      + `<dt>Previous hash</dt><dd class="mono">${esc(proof.prevHash)}</dd></dl>`
      + `<p class="muted">An operator checks it with <code>scripts/verify-audit --url ${esc(origin)} --hash ${esc(proof.hash)}</code>:`
      + ' it walks the whole hash chain and says which row holds this hash.</p>'
    : '<dl><dt>Audit hash</dt><dd>pending</dd></dl><p class="muted">The audit record of this request was not sealed yet '
      + 'when this report was saved; save it again later, or ask an operator to look up the request id.</p>';
  const title = `groundgate evidence report ${body.requestId}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<h1>groundgate evidence report</h1>
<p class="muted">Request <code>${esc(body.requestId)}</code> · ${esc(at.toISOString())}</p>
<h2>Question</h2>
<p class="question">${esc(question)}</p>
<p class="muted">Searched: ${scope === 'workspace' ? 'only the documents uploaded in this browser' : 'the shared corpus, with any documents uploaded in this browser'}.</p>
<h2>Outcome</h2>
<p class="status ${esc(body.status)}">${esc(OUTCOME[body.status] || body.status)}</p>
${body.reason ? `<p>Reason: <code>${esc(body.reason)}</code> ${esc(REASONS[body.reason] || '')}</p>` : ''}
${refusedAt && body.status !== 'answered' ? `<p>${body.status === 'blocked' ? 'Blocked' : 'Refused'} at stage <code>${esc(refusedAt.name)}</code>: ${esc(refusedAt.detail)}</p>` : ''}
${body.answer ? `<h3>Answer</h3><p class="answer">${esc(body.answer)}</p>` : ''}
${claims.length ? `<h2>Claims (${claims.length})</h2><table><thead><tr><th>score</th><th>verdict</th><th>claim</th><th>passages</th></tr></thead><tbody>${claims.join('')}</tbody></table>` : ''}
${g ? `<h2>Groundedness: ${g.passed ? 'passed' : 'not passed'}</h2><table><thead><tr><th>measure</th><th>value</th><th>threshold</th></tr></thead><tbody>`
    + `<tr><td>mean claim score</td><td class="mono">${esc(fixed(g.mean, 2))}</td><td class="mono">${esc(fixed(g.threshold, 2))}</td></tr>`
    + `<tr><td>weakest claim</td><td class="mono">${esc(fixed(g.min, 2))}</td><td class="mono">${esc(fixed(g.minClaim, 2))}</td></tr>`
    + `<tr><td>question coverage</td><td class="mono">${esc(fixed(g.coverage, 2))}</td><td class="mono">${esc(fixed(g.minCoverage, 2))}</td></tr></tbody></table>` : ''}
${cited.length ? `<h2>Cited passages (${cited.length})</h2>${cited.join('')}` : ''}
${body.status !== 'answered' ? `<h2>Retrieved passages (${body.retrieval.length})</h2>${body.retrieval.length ? body.retrieval.map(passageHtml).join('') : '<p>None: no passage was retrieved.</p>'}` : ''}
<h2>Stages</h2>
<table><thead><tr><th>stage</th><th>status</th><th>ms</th><th>detail</th></tr></thead><tbody>${stageRows.join('')}</tbody></table>
<h2>Engine and corpus</h2>
<dl>
<dt>Engine</dt><dd><code>${esc(health ? health.engine : '')}</code> (answering with <code>${esc(body.engine.ai)}</code>, index <code>${esc(body.engine.index)}</code>)</dd>
<dt>Models</dt><dd>${models}</dd>
<dt>Build</dt><dd><code>${esc(health ? health.build : 'unknown')}</code></dd>
<dt>Corpus version</dt><dd><code>${esc(body.corpusVersion)}</code></dd>
<dt>Cache</dt><dd>${body.cache.hit ? `hit${body.cache.tier ? ` (${esc(body.cache.tier)})` : ''}` : 'miss'}</dd>
<dt>Cost</dt><dd>${esc(body.cost.calls)} model calls, ${esc(body.cost.neurons)} neurons ($${esc(Number(body.cost.usd.toPrecision(2)))})</dd>
<dt>Request id</dt><dd><code>${esc(body.requestId)}</code></dd>
<dt>Time</dt><dd>${esc(at.toISOString())}</dd>
<dt>Worker</dt><dd><code>${esc(origin)}</code></dd>
</dl>
<h2>Audit record</h2>
${audit}
</body>
</html>
`;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** GET /audit/{requestId}: the request's sealed audit row, retried while it is
 * not written yet (it lands just after the response); null if it never comes. */
async function auditProof(requestId) {
  for (const wait of [0, 250, 500, 750, 1000]) {
    if (wait) await sleep(wait);
    try {
      const res = await fetch(`/audit/${encodeURIComponent(requestId)}`, { headers: { accept: 'application/json' } });
      if (res.ok) {
        const body = await jsonOf(res);
        if (body && /^[0-9a-f]{64}$/.test(body.hash || '')) return body;
      } else if (res.status !== 404) {
        return null;
      }
    } catch { /* retried */ }
  }
  return null;
}

async function currentHealth() {
  try {
    const res = await fetch('/health', { headers: { accept: 'application/json' } });
    const body = await jsonOf(res);
    if (res.ok && body) lastHealth = body;
  } catch { /* the last one read, if any */ }
  return lastHealth;
}

function download(name, html) {
  const url = URL.createObjectURL(new Blob([html], { type: 'text/html;charset=utf-8' }));
  const a = el('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

async function saveReport(button, status) {
  const result = shown;
  if (!result) return;
  button.disabled = true;
  status.textContent = 'Preparing the report (fetching the audit record)…';
  try {
    const [health, proof] = await Promise.all([currentHealth(), auditProof(result.body.requestId)]);
    const name = `groundgate-evidence-${String(result.body.requestId).replace(/[^A-Za-z0-9_-]/g, '')}.html`;
    download(name, evidenceReport(result, health, proof, window.location.origin));
    status.textContent = `Saved ${name} (${proof ? `audit row ${proof.seq}` : 'audit hash pending'}).`;
  } catch (e) {
    status.textContent = `The report could not be made: ${e.message}`;
  } finally {
    button.disabled = false;
  }
}

function reportBox() {
  const box = el('div', 'report');
  const button = el('button', 'save-report', 'Save evidence report');
  button.type = 'button';
  button.id = 'save-report';
  button.setAttribute('aria-describedby', 'report-status');
  const status = el('span', 'report-status muted');
  status.id = 'report-status';
  status.setAttribute('role', 'status');
  button.addEventListener('click', () => saveReport(button, status));
  box.append(button, status);
  return box;
}

resetStages();
setupTurnstile();
loadWorkspace();
