// Starts the real worker under workerd (`wrangler dev --env local`) with its own
// fresh local D1, on a free loopback port, for one test file.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ADMIN_TOKEN = 'test-admin-token';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url, child, logs) {
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited:\n${logs.join('')}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev did not become healthy:\n${logs.join('')}`);
}

/** Runs SQL (one or more statements) against a worker's local D1, as the
 * operator would; returns the rows of the last statement. */
export function d1(persist, sql) {
  const out = execFileSync('wrangler', ['d1', 'execute', 'DB', '--local', '--env', 'local', '--persist-to', persist, '--json', '--command', sql], {
    cwd: ROOT, env: { ...process.env, CI: 'true' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out).at(-1).results;
}

/** Passages, full-text rows, and the rows keyed by their passage's rowid
 * (a writer removes index rows by that key): all three equal when every
 * passage is indexed once, under its own rowid. */
export function indexRows(persist) {
  return d1(persist, `SELECT (SELECT count(*) FROM passages) AS passages, (SELECT count(*) FROM passages_fts) AS rows,
    (SELECT count(*) FROM passages_fts f JOIN passages p ON p.rowid = f.rowid AND p.id = f.id) AS keyed`)[0];
}

/** Retries `check` (which throws until it holds) for up to `ms`: the audit
 * record and the cache write land after the response, in `waitUntil`. */
export async function eventually(check, ms = 5000) {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** POST /workspaces as the client at `ip`: { status, body, cookie }. */
export async function createWorkspace(url, ip, headers = {}) {
  const res = await fetch(`${url}/workspaces`, { method: 'POST', headers: { 'cf-connecting-ip': ip, ...headers } });
  return { status: res.status, body: await res.json(), cookie: res.headers.get('set-cookie') };
}

/** Uploads `text` as the file `name` into workspace `id`: { status, body }. */
export async function uploadDocument(url, id, secret, name, text, type = 'text/markdown') {
  const res = await fetch(`${url}/workspaces/${id}/documents?name=${encodeURIComponent(name)}`, {
    method: 'POST', headers: { 'content-type': type, ...(secret ? { 'workspace-secret': secret } : {}) }, body: text,
  });
  return { status: res.status, body: await res.json() };
}

/** Runs the worker's cron once (wrangler dev's test route); its status. An
 * idle keep-alive socket the dev server has just closed is retried once, on
 * a new one: the cron never ran on it. */
export async function runCron(url) {
  const run = () => fetch(`${url}/__scheduled?cron=*/30+*+*+*+*`).then((r) => r.status);
  try {
    return await run();
  } catch (e) {
    if (e.cause?.code !== 'UND_ERR_SOCKET') throw e;
    return run();
  }
}

/** Kills a wrangler dev process group and waits for it to exit. */
async function kill(child) {
  try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
  await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)));
}

/** The Workers AI engine against the doubles (tests/doubles). */
export const WORKERS_AI = {
  config: join('tests', 'worker', 'workers-ai.toml'),
  with: [join('tests', 'doubles', 'wrangler.toml')],
};

/** Starts a worker; `vars` override [vars]; `config` and `with` pick another
 * configuration (default: wrangler.toml's local environment) and the workers
 * run beside it. Returns { url, stop, logs, persist }. */
export async function startWorker(options = {}) {
  // A start can lose a race for its port or its build lock on a loaded machine:
  // one more try, on a fresh port, before giving up.
  try {
    return await startOnce(options);
  } catch (first) {
    try {
      return await startOnce(options);
    } catch {
      throw first;
    }
  }
}

async function startOnce({ vars = {}, config, with: beside = [] } = {}) {
  const persist = mkdtempSync(join(tmpdir(), 'groundgate-test-'));
  const env = { ...process.env, CI: 'true' };
  const target = config ? ['-c', config] : ['--env', 'local'];
  execFileSync('wrangler', ['d1', 'migrations', 'apply', 'DB', '--local', ...target, '--persist-to', persist], {
    cwd: ROOT, env, stdio: 'pipe',
  });
  const port = await freePort();
  const varArgs = Object.entries({ ADMIN_TOKEN, ...vars }).flatMap(([k, v]) => ['--var', `${k}:${v}`]);
  const configs = config ? [config, ...beside].flatMap((c) => ['-c', c]) : ['--env', 'local'];
  const child = spawn('wrangler', [
    'dev', ...configs, '--ip', '127.0.0.1', '--port', String(port), '--persist-to', persist,
    '--show-interactive-dev-session=false', '--inspector-port', '0', '--test-scheduled', ...varArgs,
  ], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const logs = [];
  child.stdout.on('data', (d) => logs.push(d.toString()));
  child.stderr.on('data', (d) => logs.push(d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await kill(child);
    rmSync(persist, { recursive: true, force: true });
  };
  try {
    await waitForHealth(url, child, logs);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url, stop, logs, persist };
}

/** The Markdown documents of a corpus folder, as scripts/ingest sends them. */
export function corpusDocuments(dir = join(ROOT, 'corpus')) {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.md') && n !== 'COVERAGE.md' && n !== 'README.md')
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
}

/** The vocabulary that ships beside a corpus folder (its synonyms and reference words), if any. */
export function corpusVocabulary(dir = join(ROOT, 'corpus')) {
  const file = join(dir, 'vocabulary.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}

/** POST /admin/ingest. `vocabulary` defaults to the sample corpus's own. */
export async function ingest(url, documents, { complete = true, token = ADMIN_TOKEN, vocabulary = corpusVocabulary() } = {}) {
  const res = await fetch(`${url}/admin/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ documents, vocabulary, complete }),
  });
  return { status: res.status, body: await res.json() };
}

/** POST /ask; `headers` adds request headers (e.g. CF-Connecting-IP). */
export async function ask(url, question, extra = {}, headers = {}) {
  const res = await fetch(`${url}/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ question, ...extra }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** POST /ask with `Accept: text/event-stream`, read to the end. Returns the
 * status, headers and, for a stream, its events `{ event, data, at }` in order
 * (`at`: ms since the request was sent); for a JSON reply, its `body`. */
export async function askEvents(url, question, extra = {}, headers = {}) {
  const sent = performance.now();
  const res = await fetch(`${url}/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ question, ...extra }),
  });
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    return { status: res.status, headers: res.headers, body: await res.json() };
  }
  const events = [];
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of res.body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const frame = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const field = (name) => frame.split('\n').find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
      events.push({ event: field('event'), data: JSON.parse(field('data')), at: performance.now() - sent });
    }
  }
  assert.equal(buffered, '', 'the stream ends on an event boundary');
  return { status: res.status, headers: res.headers, events };
}
