// The operator's review inbox: lists the questions the worker refused
// (GET /admin/review), and approves an answer for one (POST
// /admin/review/{id}/approve) or dismisses it (.../dismiss); lists the approved
// passages of the shared corpus (GET /admin/passages?origin=operator) and
// retires one (DELETE /admin/passages/{id}). The admin token is
// kept only in this tab's sessionStorage and sent only to this origin.
// Questions and passages are visitors' and corpus text: only ever textContent.
'use strict';

const TOKEN_KEY = 'groundgate.adminToken';
const REASONS = {
  no_evidence: 'the corpus does not cover it',
  below_threshold: 'claims not supported strongly enough',
  off_question: 'supported sentences that do not answer it',
};

const $ = (id) => document.getElementById(id);
const tokenInput = $('token');
let loading = false;

/** An element with optional class and text (always textContent). */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function storedToken() {
  try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch { return ''; }
}

function keepToken(value) {
  try {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch { /* kept in the field only */ }
}

/** The page-level status line: `kind` 'ok', 'error' or 'busy'. */
function status(kind, ...parts) {
  const line = el('p', `inbox-${kind}`);
  line.append(...parts);
  $('inbox-status').replaceChildren(line);
}

function errorParts(body, httpStatus) {
  const error = (body && body.error) || { code: `http_${httpStatus}`, message: 'The worker answered with an unexpected response.' };
  return [el('code', null, error.code), ` ${error.message}`];
}

const when = (unix) => new Date(unix * 1000).toLocaleString();

/** A request with the admin token; returns `{ res, body }`. */
async function call(path, options = {}) {
  const token = tokenInput.value.trim();
  const res = await fetch(path, {
    ...options,
    headers: { accept: 'application/json', authorization: `Bearer ${token}`, ...(options.headers || {}) },
  });
  const body = await res.json().catch(() => null);
  if (res.status === 401) keepToken('');
  return { res, body };
}

function evidenceList(item) {
  const box = el('details', 'retrieved');
  box.open = true;
  box.append(el('summary', null, `Retrieved when refused (${item.evidence.length})`));
  const list = el('ol');
  for (const e of item.evidence) {
    const entry = el('li');
    entry.append(el('p', 'passage-head', `${e.passageId} · ${e.doc} › ${e.section}`), el('p', 'passage-text', e.text));
    list.append(entry);
  }
  box.append(list);
  return box;
}

function itemCard(item) {
  const card = el('article', 'review-item');
  card.dataset.id = String(item.id);
  const titleId = `item-${item.id}-question`;
  card.setAttribute('aria-labelledby', titleId);
  const question = el('h3', 'review-question', item.question);
  question.id = titleId;
  const meta = el('p', 'review-meta');
  meta.append(`Asked ${item.count} ${item.count === 1 ? 'time' : 'times'} · refused `, el('code', null, item.reason),
    `${REASONS[item.reason] ? ` (${REASONS[item.reason]})` : ''} · first ${when(item.firstAt)} · last ${when(item.lastAt)}`);
  if (item.workspace) meta.append(' · in workspace ', el('code', 'review-workspace', item.workspace));
  card.append(question, meta);
  if (item.evidence.length) card.append(evidenceList(item));
  else card.append(el('p', 'muted', 'Nothing was retrieved.'));

  const form = el('form', 'review-form');
  form.noValidate = true;
  const answerId = `item-${item.id}-answer`;
  const answerLabel = el('label', null, 'Approved answer');
  answerLabel.htmlFor = answerId;
  const answer = el('textarea', 'review-answer');
  answer.id = answerId;
  answer.rows = 3;
  answer.maxLength = 4000;
  answer.required = true;
  const titleInputId = `item-${item.id}-title`;
  const titleLabel = el('label', null, 'Title (optional)');
  titleLabel.htmlFor = titleInputId;
  const title = el('input', 'review-title');
  title.type = 'text';
  title.id = titleInputId;
  title.maxLength = 200;
  form.append(answerLabel, answer, titleLabel, title);

  let target = null;
  if (item.workspace) {
    const targetId = `item-${item.id}-target`;
    const targetLabel = el('label', null, 'Add the answer to');
    targetLabel.htmlFor = targetId;
    target = el('select', 'review-target');
    target.id = targetId;
    target.append(new Option('that visitor\'s workspace only', 'workspace'), new Option('the shared corpus', 'shared'));
    form.append(targetLabel, target);
  }

  const result = el('p', 'item-result');
  result.setAttribute('role', 'status');
  const approve = el('button', 'approve', 'Approve');
  approve.type = 'submit';
  const dismiss = el('button', 'dismiss', 'Dismiss');
  dismiss.type = 'button';
  const actions = el('div', 'review-actions');
  actions.append(approve, dismiss);
  form.append(actions, result);
  card.append(form);

  const busy = (on) => { approve.disabled = on; dismiss.disabled = on; };
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = answer.value.trim();
    if (!text) { result.textContent = 'Write the approved answer first.'; answer.focus(); return; }
    const body = { answer: text };
    if (title.value.trim()) body.title = title.value.trim();
    if (target) body.target = target.value;
    busy(true);
    result.textContent = 'Approving…';
    try {
      const { res, body: reply } = await call(`/admin/review/${item.id}/approve`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
      });
      if (res.ok && reply) {
        status('ok', `✓ Approved “${item.question}”: passage `, el('code', null, reply.passageId),
          ` added to ${reply.workspace ? `workspace ${reply.workspace}` : 'the shared corpus'} (version ${reply.version}).`);
        await load();
      } else {
        result.replaceChildren(`⚠ Not approved (${res.status}): `, ...errorParts(reply, res.status));
      }
    } catch (err) {
      result.textContent = `⚠ The request failed: ${err.message}`;
    } finally {
      busy(false);
    }
  });
  dismiss.addEventListener('click', async () => {
    busy(true);
    result.textContent = 'Dismissing…';
    try {
      const { res, body: reply } = await call(`/admin/review/${item.id}/dismiss`, { method: 'POST' });
      if (res.ok) {
        status('ok', `✓ Dismissed “${item.question}”.`);
        await load();
      } else {
        result.replaceChildren(`⚠ Not dismissed (${res.status}): `, ...errorParts(reply, res.status));
      }
    } catch (err) {
      result.textContent = `⚠ The request failed: ${err.message}`;
    } finally {
      busy(false);
    }
  });
  return card;
}

/** An approved passage, with a retire button that asks once more before it acts. */
function passageCard(passage) {
  const card = el('article', 'approved-passage');
  card.dataset.id = passage.id;
  card.append(el('p', 'passage-head', `${passage.id} · ${passage.section}`), el('p', 'passage-text', passage.text));
  const retire = el('button', 'retire', 'Retire');
  retire.type = 'button';
  const result = el('p', 'item-result');
  result.setAttribute('role', 'status');
  let armed = false;
  retire.addEventListener('click', async () => {
    if (!armed) {
      armed = true;
      retire.textContent = 'Retire for good';
      result.textContent = 'Click again to remove it from the shared corpus.';
      return;
    }
    retire.disabled = true;
    result.textContent = 'Retiring…';
    try {
      const { res, body } = await call(`/admin/passages/${encodeURIComponent(passage.id)}`, { method: 'DELETE' });
      if (res.ok && body) {
        status('ok', '✓ Retired ', el('code', null, passage.id), ` (version ${body.corpusVersion}).`);
        await load();
      } else {
        result.replaceChildren(`⚠ Not retired (${res.status}): `, ...errorParts(body, res.status));
        retire.disabled = false;
      }
    } catch (err) {
      result.textContent = `⚠ The request failed: ${err.message}`;
      retire.disabled = false;
    }
  });
  card.append(retire, result);
  return card;
}

/** GET /admin/passages?origin=operator: the approved passages, rendered. */
async function loadPassages() {
  const { res, body } = await call('/admin/passages?origin=operator');
  if (!res.ok || !body || !Array.isArray(body.passages)) {
    const line = el('p', 'inbox-error', `⚠ The approved passages could not be read (${res.status}): `);
    line.append(...errorParts(body, res.status));
    $('passages').replaceChildren(line);
  } else {
    $('passages').replaceChildren(...(body.passages.length ? body.passages.map(passageCard) : [el('p', 'muted', 'None yet.')]));
    $('approved-title').textContent = `Approved passages (${body.passages.length})`;
  }
  $('approved').hidden = false;
}

/** The item a link points at (`#item=ID`, as an escalation's button opens):
 * marked, scrolled to, its answer box focused; said when it is no longer open.
 * The link is then taken from the address, so later reloads leave the status be. */
function showLinked() {
  const id = /^#item=(\d+)$/.exec(location.hash)?.[1];
  if (!id || $('inbox').hidden) return;
  history.replaceState(null, '', location.pathname + location.search);
  const card = document.querySelector(`.review-item[data-id="${id}"]`);
  if (!card) {
    status('ok', `Item ${id} is no longer open (approved, dismissed or pruned).`);
    return;
  }
  document.querySelectorAll('.review-item.linked').forEach((c) => c.classList.remove('linked'));
  card.classList.add('linked');
  card.scrollIntoView({ block: 'start' });
  card.querySelector('textarea')?.focus({ preventScroll: true });
}

/** GET /admin/review: the open items, rendered (or the error, said). */
async function load() {
  if (loading) return;
  if (!tokenInput.value.trim()) {
    status('error', 'Enter the admin token first.');
    tokenInput.focus();
    return;
  }
  loading = true;
  $('load').disabled = true;
  try {
    const { res, body } = await call('/admin/review');
    if (!res.ok || !body || !Array.isArray(body.items)) {
      $('inbox').hidden = true;
      $('approved').hidden = true;
      $('items').replaceChildren();
      status('error', `⚠ The inbox could not be read (${res.status}): `, ...errorParts(body, res.status));
      return;
    }
    keepToken(tokenInput.value.trim());
    const open = body.items.filter((i) => !i.status || i.status === 'open');
    $('items').replaceChildren(...(open.length ? open.map(itemCard) : [el('p', 'muted', 'No open questions.')]));
    $('inbox-title').textContent = `Open questions (${open.length})`;
    $('inbox').hidden = false;
    await loadPassages();
    showLinked();
  } catch (e) {
    status('error', `⚠ The inbox could not be read: ${e.message}`);
  } finally {
    loading = false;
    $('load').disabled = false;
  }
}

$('login').addEventListener('submit', (e) => {
  e.preventDefault();
  $('inbox-status').replaceChildren();
  load();
});

window.addEventListener('hashchange', showLinked);

$('forget').addEventListener('click', () => {
  keepToken('');
  tokenInput.value = '';
  $('inbox').hidden = true;
  $('approved').hidden = true;
  $('items').replaceChildren();
  $('passages').replaceChildren();
  status('ok', 'The token is forgotten.');
  tokenInput.focus();
});

const saved = storedToken();
if (saved) {
  tokenInput.value = saved;
  load();
}
