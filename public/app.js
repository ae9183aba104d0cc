// The groundgate demo page: asks POST /ask, renders each pipeline stage as it
// arrives (Server-Sent Events, or one JSON body), then the answer or refusal.
// Response data is corpus text: it only ever reaches the page as textContent.
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
const TURNSTILE_URL = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';
const OFFLINE_NOTE = 'The Turnstile widget could not load (offline?). Local development does not verify it; ' +
  'a deployed worker will refuse questions without it.';

const $ = (id) => document.getElementById(id);
const form = $('ask-form');
const input = $('question');
const askButton = $('ask');
const popover = $('popover');
let widgetId = null;
let token = null;
let tokenWaiter = null;
let busy = false;

/** An element with optional class and text (always textContent). */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
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

function showPopover(button, citation, n) {
  popover.replaceChildren(
    el('p', 'pop-head', `[${n}] ${citation.passageId}`),
    el('p', 'pop-where', `${citation.doc} › ${citation.section}`),
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
  button.setAttribute('aria-label', `Source ${n}: ${citation.passageId}`);
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

const squash = (s) => s.replace(/\s+/g, ' ').trim();

/** The answer with [n] markers: after each claim found verbatim in the answer,
 * its supporting passages' citation numbers; whatever is left at the end. */
function answerWithMarkers(body) {
  const answer = squash(body.answer || '');
  const numbers = new Map(body.citations.map((c, i) => [c.passageId, i + 1]));
  const spots = [];
  const placed = new Set();
  for (const claim of body.claims) {
    const at = answer.indexOf(squash(claim.text));
    const ids = claim.supportingPassageIds.filter((id) => numbers.has(id));
    if (at < 0 || !ids.length) continue;
    spots.push({ end: at + squash(claim.text).length, ids });
    ids.forEach((id) => placed.add(id));
  }
  const rest = body.citations.map((c) => c.passageId).filter((id) => !placed.has(id));
  if (rest.length) spots.push({ end: answer.length, ids: rest });
  spots.sort((a, b) => a.end - b.end);
  const p = el('p', 'answer');
  let from = 0;
  for (const spot of spots) {
    p.append(answer.slice(from, spot.end));
    for (const id of new Set(spot.ids)) p.append(marker(body.citations[numbers.get(id) - 1], numbers.get(id)));
    from = spot.end;
  }
  p.append(answer.slice(from));
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
    item.append(el('p', 'passage-head', `${r.passageId} · ${r.doc} › ${r.section} · score ${r.score.toFixed(3)}`),
      el('p', 'passage-text', r.text));
    list.append(item);
  }
  box.append(list);
  return box;
}

function showResult(body) {
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
  $('details').replaceChildren(...details);
}

function showError(body, httpStatus) {
  finishStages();
  const error = (body && body.error) || { code: `http_${httpStatus}`, message: 'The worker answered with an unexpected response.' };
  const box = el('div', 'outcome error');
  box.append(el('p', 'status', `⚠ Error${httpStatus ? ` ${httpStatus}` : ''}`));
  const line = el('p', 'reason');
  line.append(el('code', null, error.code), ` ${error.message}`);
  box.append(line);
  if (body && body.requestId) box.append(el('p', 'meta', `request ${body.requestId}`));
  $('outcome').replaceChildren(box);
  $('details').replaceChildren();
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
        else if (event === 'result') { ended = true; showResult(parsed); }
        else if (event === 'error') { ended = true; showError(parsed, null); }
      });
      if (!ended) showError({ error: { code: 'stream_ended', message: 'The stream ended before a result.' } }, null);
    } else {
      const parsed = await res.json().catch(() => null);
      if (res.ok && parsed && parsed.status) showResult(parsed);
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

resetStages();
setupTurnstile();
