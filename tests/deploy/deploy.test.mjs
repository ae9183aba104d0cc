// scripts/deploy against a stand-in wrangler first on PATH (tests/deploy/wrangler)
// and a stand-in deployed worker (a local HTTP server that checks the admin token
// the deploy set), in a copy of the project so wrangler.toml edits stay there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, symlinkSync, existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FAKE_BIN = join(ROOT, 'tests', 'deploy');
let project;
let site;
const received = [];

function copyProject() {
  const dir = mkdtempSync(join(tmpdir(), 'groundgate-deploy-'));
  // Timestamps kept, so setup finds nothing to install and the build up to date.
  const entries = ['scripts', 'corpus', 'evals', 'src', 'migrations', 'build', 'public', 'wrangler.toml', 'Cargo.toml', 'Cargo.lock', 'package.json', 'package-lock.json', '.dev.vars.example'];
  for (const entry of entries) {
    cpSync(join(ROOT, entry), join(dir, entry), { recursive: true, preserveTimestamps: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

function stateFile() { return join(project, 'fake-wrangler-state.json'); }
function state() { return JSON.parse(readFileSync(stateFile(), 'utf8')); }

/** Runs a command without blocking this process (the stand-in site answers here). */
function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** Runs scripts/deploy with the stand-in first on PATH; returns output and the calls made. */
async function deploy(args = [], env = {}) {
  const log = join(project, `calls-${Date.now()}-${Math.random()}.jsonl`);
  writeFileSync(log, '');
  const result = await run(join(project, 'scripts', 'deploy'), args, {
    env: {
      PATH: `${FAKE_BIN}:${process.env.PATH}`,
      HOME: process.env.HOME,
      FAKE_WRANGLER_LOG: log,
      FAKE_WRANGLER_STATE: stateFile(),
      FAKE_WRANGLER_URL: site.url,
      CLOUDFLARE_API_TOKEN: 'token',
      CLOUDFLARE_ACCOUNT_ID: 'account',
      TURNSTILE_SECRET: 'turnstile-secret',
      TURNSTILE_SITE_KEY: '0x4AAAAAAAtestsitekey',
      ...env,
    },
  });
  const calls = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { code: result.code, out: result.out, calls };
}

before(async () => {
  project = copyProject();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const token = existsSync(stateFile()) ? state().secrets.ADMIN_TOKEN : undefined;
      const authorized = token && req.headers.authorization === `Bearer ${token}`;
      received.push({ path: req.url, authorized });
      res.writeHead(authorized ? 200 : 401, { 'content-type': 'application/json' });
      const replies = {
        '/admin/ingest/begin': { ingest: 'x', base: 'empty', pagesDone: [], remove: [] },
        '/admin/ingest/page': { page: 0, added: ['pricing-01'], updated: [], unchanged: 0, removed: [], embeddingNeurons: 0 },
        '/admin/ingest/commit': { corpusVersion: 'v1', passages: 52, vocabulary: 'none', pages: 1 },
        '/ask': { status: 'answered', cache: { hit: false } },
        '/admin/cache/pin': { pinned: 1, corpusVersion: 'v1' },
      };
      const route = req.url.replace(/^\/admin\/ingest\/[0-9a-f]+\/(pages\/\d+|commit)$/, (_, p) => `/admin/ingest/${p.startsWith('pages') ? 'page' : 'commit'}`);
      res.end(JSON.stringify(authorized ? replies[route] ?? {} : { error: { code: 'unauthorized', message: 'no' } }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  site = { url: `http://127.0.0.1:${server.address().port}`, server };
});
after(() => new Promise((r) => site.server.close(r)));

const named = (calls, ...words) => calls.filter((c) => words.every((w, i) => c[i] === w));

test('a missing Turnstile secret stops the deploy before any call', async () => {
  const { code, out, calls } = await deploy([], { TURNSTILE_SECRET: '' });
  assert.notEqual(code, 0);
  assert.match(out, /TURNSTILE_SECRET is not set/);
  assert.deepEqual(calls, []);
});

test('a missing Turnstile site key stops the deploy before any call', async () => {
  const { code, out, calls } = await deploy([], { TURNSTILE_SITE_KEY: '' });
  assert.notEqual(code, 0);
  assert.match(out, /TURNSTILE_SITE_KEY is not set/);
  assert.deepEqual(calls, []);
});

test('missing credentials stop the deploy before any change', async () => {
  const { code, out, calls } = await deploy([], { CLOUDFLARE_API_TOKEN: '' });
  assert.notEqual(code, 0);
  assert.match(out, /no Cloudflare credentials/);
  assert.deepEqual(calls, [['whoami']], 'only the read that tells a wrangler login apart');
});

test('the first run creates the database, the index, its metadata indexes and the secrets', async () => {
  const { code, out, calls } = await deploy();
  assert.equal(code, 0, out);
  const s = state();
  assert.equal(s.d1.length, 1);
  assert.match(readFileSync(join(project, 'wrangler.toml'), 'utf8'), new RegExp(`database_id = "${s.d1[0].uuid}"`));
  assert.deepEqual(named(calls, 'vectorize', 'create')[0].slice(2), ['groundgate-passages', '--dimensions=768', '--metric=cosine']);
  assert.deepEqual(s.vectorize[0].metadata.map((m) => [m.property, m.vectorsBefore]), [['doc', 0], ['section', 0], ['scope', 0]]);
  const order = (pred) => calls.findIndex(pred);
  assert.ok(order((c) => c[1] === 'create-metadata-index') < order((c) => c[0] === 'deploy'), 'metadata indexes before anything can insert');
  assert.ok(named(calls, 'd1', 'migrations', 'apply').length === 1);
  assert.deepEqual(named(calls, 'deploy')[0].slice(1), ['--var', 'TURNSTILE_SITE_KEY:0x4AAAAAAAtestsitekey'], 'the page gets the site key');
  assert.deepEqual(named(calls, 'deploy')[1].slice(1), ['--var', 'TURNSTILE_SITE_KEY:0x4AAAAAAAtestsitekey', '--var', 'TURNSTILE_HOSTNAME:127.0.0.1'],
    'siteverify\'s hostname is checked against the host it deployed to');
  assert.deepEqual(Object.keys(s.secrets).sort(), ['ADMIN_TOKEN', 'IP_HASH_KEY', 'TURNSTILE_SECRET']);
  assert.equal(s.secrets.TURNSTILE_SECRET, 'turnstile-secret');
  assert.match(s.secrets.ADMIN_TOKEN, /^[0-9a-f]{64}$/);
  assert.ok(out.includes(`ADMIN_TOKEN=${s.secrets.ADMIN_TOKEN}`), 'the generated admin token is printed once');
  assert.ok(!out.includes(s.secrets.IP_HASH_KEY), 'the IP hash key is never printed');
  assert.ok(received.some((r) => /^\/admin\/ingest\/[0-9a-f]+\/commit$/.test(r.path) && r.authorized), 'ingested with the token it set');
  assert.ok(received.some((r) => r.path === '/admin/cache/pin' && r.authorized), 'pre-warmed the cache');
  assert.match(out, /groundgate is deployed at http:\/\/127\.0\.0\.1:\d+/);
});

test('a second run creates nothing and re-sets no secret', async () => {
  const before = state();
  const { code, out, calls } = await deploy([], { ADMIN_TOKEN: before.secrets.ADMIN_TOKEN });
  assert.equal(code, 0, out);
  assert.deepEqual(calls.filter((c) => c.includes('create') || c.includes('create-metadata-index') || c[0] === 'secret' && c[1] === 'put'), []);
  assert.deepEqual(state().secrets, before.secrets);
  assert.ok(!out.includes('ADMIN_TOKEN='), 'an existing secret is never echoed');
});

test('an index whose dimensions do not match the model stops the deploy before any change', async () => {
  const s = state();
  s.vectorize[0].dimensions = 384;
  writeFileSync(stateFile(), JSON.stringify(s));
  const { code, out, calls } = await deploy();
  assert.notEqual(code, 0);
  assert.match(out, /has 384 dimensions/);
  assert.deepEqual(calls, [['vectorize', 'list', '--json']]);
  s.vectorize[0].dimensions = 768;
  writeFileSync(stateFile(), JSON.stringify(s));
});

test('--dry-run prints the plan and only runs wrangler deploy --dry-run', async () => {
  const { code, out, calls } = await deploy(['--dry-run'], { CLOUDFLARE_API_TOKEN: '', TURNSTILE_SECRET: '' });
  assert.equal(code, 0, out);
  assert.match(out, /would check the Vectorize index "groundgate-passages" \(768 dimensions/);
  assert.deepEqual(calls.map((c) => c.slice(0, 2)), [['deploy', '--dry-run']]);
});

test('--dry-run passes offline with the real wrangler and the production config', async () => {
  const { code, out } = await run(join(project, 'scripts', 'deploy'), ['--dry-run'], {
    cwd: project, env: { PATH: process.env.PATH, HOME: process.env.HOME, CI: 'true' },
  });
  assert.equal(code, 0, out.slice(-2000));
  assert.match(out, /env\.ENVIRONMENT \("production"\)/);
  assert.match(out, /--dry-run: exiting now/);
});
