// The contract with Workers AI: every request the worker builds for each
// configured model (wrangler.toml) and each model of its catalog
// (src/catalog.rs), and the outputs it reads, written by the native test
// tests/contract.rs and type-checked with `tsc --noEmit` against each model's
// input and output types in @cloudflare/workers-types (package.json pins it).
// A field a model does not have is a type error here, before production.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TYPES = join(ROOT, 'node_modules', '@cloudflare', 'workers-types', 'index.d.ts');
let dir;
let records;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'groundgate-contract-'));
  const out = join(dir, 'records.json');
  execFileSync('cargo', ['test', '--quiet', '--test', 'contract'], { cwd: ROOT, env: { ...process.env, CONTRACT_OUT: out }, stdio: ['ignore', 'ignore', 'inherit'] });
  records = JSON.parse(readFileSync(out, 'utf8'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const TYPE = {
  input: (model) => `AiModels[${JSON.stringify(model)}]["inputs"]`,
  output: (model) => `AiModels[${JSON.stringify(model)}]["postProcessedOutputs"]`,
  options: () => 'AiOptions',
};

/** Type-checks the records as one .ts file; returns tsc's status and output. */
function typecheck(name, checked) {
  const lines = [`/// <reference path=${JSON.stringify(TYPES)} />`];
  checked.forEach((r, i) => {
    if (r.body === null) return; // no options: `env.AI.run` takes its default
    lines.push(`// ${r.model} ${r.what}${r.role ? ` (${r.role})` : ''}`);
    lines.push(`export const ${r.what}${i}: ${TYPE[r.what](r.model)} = ${JSON.stringify(r.body, null, 2)};`);
  });
  writeFileSync(join(dir, `${name}.ts`), lines.join('\n') + '\n');
  writeFileSync(join(dir, `${name}.json`), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2023', module: 'esnext', lib: ['es2023'], types: [], skipLibCheck: true },
    files: [`${name}.ts`],
  }));
  const run = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(dir, `${name}.json`)], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** The models wrangler.toml's production [vars] configure. */
function configured() {
  const vars = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8').split(/^\[vars\]$/m)[1].split(/^\[/m)[0];
  return [...vars.matchAll(/^(\w+_MODEL) = "([^"]+)"/gm)].map((m) => [m[1], m[2]]);
}

test('every configured model has its requests in the contract', () => {
  const models = configured();
  assert.deepEqual(models.map(([name]) => name).sort(), ['EMBEDDING_MODEL', 'GENERATION_MODEL', 'JUDGE_MODEL']);
  for (const [name, model] of models) {
    assert.ok(records.some((r) => r.model === model && r.what === 'input'), `${name} ${model}`);
  }
});

test("each request, its options and each output fit the model's published types", () => {
  const { status, output } = typecheck('requests', records);
  assert.equal(status, 0, output);
});

// What the worker sent before it knew the judge's schema: its JSON schema in
// `response_format`, a field the judge's model does not have. The check must
// catch it, or a pass above proves nothing.
test("the check refuses a field the model does not have: the judge's old response_format", () => {
  const judge = configured().find(([name]) => name === 'JUDGE_MODEL')[1];
  const sent = records.find((r) => r.model === judge && r.role === 'judge' && r.what === 'input');
  const { guided_json: schema, ...rest } = sent.body;
  assert.ok(schema, 'the judge is sent guided_json');
  const old = { ...sent, body: { ...rest, response_format: { type: 'json_schema', json_schema: schema } } };
  const { status, output } = typecheck('old-judge', [old]);
  assert.notEqual(status, 0);
  assert.match(output, /response_format/);
});
