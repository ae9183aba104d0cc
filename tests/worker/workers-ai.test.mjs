// The Workers AI engine under workerd, its AI and VECTORIZE bindings served by
// the doubles in tests/doubles (scripted per question by emoji markers).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, ingest, ask, askEvents, corpusDocuments, d1, WORKERS_AI, ADMIN_TOKEN } from './harness.mjs';

let worker;
before(async () => {
  worker = await startWorker({ ...WORKERS_AI });
  const { status, body } = await ingest(worker.url, corpusDocuments());
  assert.equal(status, 200, JSON.stringify(body));
});
after(() => worker?.stop());

const Q = 'How much does the Dedicated Desk plan cost?';
const stageOf = (body, name) => body.stages.find((s) => s.name === name);
const ledger = async () => (await fetch(`${worker.url}/admin/spend`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json();

test('/health names the engine, its models and the bindings present', async () => {
  const health = await (await fetch(`${worker.url}/health`)).json();
  assert.equal(health.engine, 'workers-ai');
  assert.deepEqual(health.bindings, { db: true, ai: true, vectorize: true });
  assert.equal(health.models.judge, '@cf/mistralai/mistral-small-3.1-24b-instruct');
  assert.equal(health.models.rewrite, '@cf/meta/llama-3.2-3b-instruct');
});

test('ingest embeds every passage (charged) and a second ingest embeds nothing', async () => {
  const again = await ingest(worker.url, corpusDocuments());
  assert.deepEqual([again.body.added.length, again.body.updated.length, again.body.embeddingNeurons], [0, 0, 0]);
});

test('an ingest whose embedding fails part way records what the calls before the failure cost', async () => {
  const before = (await ledger()).ingestNeurons;
  // 120 passages: the first call embeds 100 of them, the second meets the failing one.
  const sections = Array.from({ length: 120 }, (_, i) => `## Locker ${i + 1}\n\nLocker ${i + 1} sits in row ${i + 3}.${i === 110 ? ' 💥' : ''}`);
  const failed = await ingest(worker.url, [{ name: 'lockers.md', text: `# Lockers\n\n${sections.join('\n\n')}\n` }], { complete: false, vocabulary: null });
  assert.equal(failed.status, 503);
  const billed = (await ledger()).ingestNeurons - before;
  assert.ok(billed > 0, 'the first call was billed, so it is recorded');
});

test('a supported answer is answered, citing what the verified claims rest on', async () => {
  const { body } = await ask(worker.url, Q);
  assert.equal(body.status, 'answered');
  assert.match(body.answer, /\$450 per month/);
  assert.deepEqual(body.citations.map((c) => c.passageId), ['pricing-02']);
  assert.deepEqual(body.engine, { ai: 'workers-ai', index: 'vectorize' });
  assert.ok(body.retrieval.some((r) => r.vectorRank !== null && r.lexicalRank !== null), 'both lists were fused');
  assert.equal(body.cost.calls, 3, 'embedding, generation, and one judge call that decomposes and scores');
  assert.ok(body.cost.neurons > 0 && body.cost.usd > 0);
  assert.match(stageOf(body, 'spend').detail, /^reserved \d+ neurons/);
});

for (const [marker, kind] of [['🔢', 'a changed number'], ['🔀', 'a swapped entity'], ['🆕', 'an invented sentence'], ['🙅', 'a negation flip']]) {
  test(`a fabricated claim (${kind}) is refused`, async () => {
    const { body } = await ask(worker.url, `${Q} ${marker}`);
    assert.equal(body.status, 'refused', JSON.stringify(body.claims));
    assert.equal(body.answer, null);
    assert.deepEqual(body.citations, []);
    assert.ok(body.claims.some((c) => !c.supported || c.score < 0.7), 'the fabricated claim scored low');
  });
}

test('a fooled judge cannot pass a changed number: the sanity cap catches it', async () => {
  const { body } = await ask(worker.url, `${Q} 🔢🤥`);
  assert.equal(body.status, 'refused');
  assert.match(stageOf(body, 'entail').detail, /0\.90, 0\.90/);
  assert.match(stageOf(body, 'sanity').detail, /457 not in the source/);
});

test('a sentence the judge leaves out of its claims is still checked: shown answer text is never unchecked', async () => {
  const { body } = await ask(worker.url, `${Q} 🙈🤥`);
  assert.equal(body.status, 'refused');
  assert.match(stageOf(body, 'sanity').detail, /not among the judge's claims, checked on its own/);
  assert.ok(body.claims.some((c) => /garage/.test(c.text) && c.score < 0.4), JSON.stringify(body.claims));
});

for (const [marker, kind, why] of [
  ['🔡', 'a lowercase swapped name', /not named in the source|never appear together/],
  ['🔤', 'a changed number written in words', /not in the source/],
  ['💱', 'a changed currency', /not in the source/],
]) {
  test(`a fooled judge cannot pass ${kind}`, async () => {
    const { body } = await ask(worker.url, `${Q} ${marker}🤥`);
    assert.equal(body.status, 'refused', JSON.stringify(body.claims));
    assert.match(stageOf(body, 'sanity').detail, why);
  });
}

test('a fooled judge cannot pass a code span no passage writes; one the passage states passes', async () => {
  const { body } = await ask(worker.url, `${Q} 🧾🤥`);
  assert.equal(body.status, 'refused', JSON.stringify(body.claims));
  assert.match(stageOf(body, 'sanity').detail, /\/etc\/harbor\/desks\.conf written in no passage/);
  const stated = await ask(worker.url, `${Q} 🏷`);
  assert.equal(stated.body.status, 'answered', JSON.stringify(stated.body.claims));
  assert.match(stated.body.answer, /`\$450`/);
});

test('a hallucinated passage id is flagged and never shown as a citation', async () => {
  const { body } = await ask(worker.url, `${Q} 👻`);
  assert.match(stageOf(body, 'generate').detail, /hallucinated citations .*pricing-99/);
  assert.ok(!body.citations.some((c) => c.passageId === 'pricing-99'));
  assert.equal(body.status, 'answered');
});

test('broken JSON is repaired once', async () => {
  const { body } = await ask(worker.url, `${Q} 🧩`);
  assert.equal(body.status, 'answered');
  assert.equal(body.cost.calls, 4, 'one extra generation for the repair');
});

test('broken JSON twice is refused model_output_invalid, and not cached', async () => {
  const first = await ask(worker.url, `${Q} 🧨`);
  assert.equal(first.body.status, 'refused');
  assert.equal(first.body.reason, 'model_output_invalid');
  const again = await ask(worker.url, `${Q} 🧨`);
  assert.equal(again.body.cache.hit, false);
});

test('a model error is refused model_unavailable: reservation released, nothing cached', async () => {
  const before = await ledger();
  const { body } = await ask(worker.url, `${Q} 💥`);
  assert.equal(body.status, 'refused');
  assert.equal(body.reason, 'model_unavailable');
  const after = await ledger();
  assert.equal(after.reservedNeurons, before.reservedNeurons, 'reserved is back where it was');
  assert.ok(after.spentNeurons > before.spentNeurons, 'the calls made are charged');
  assert.equal((await ask(worker.url, `${Q} 💥`)).body.cache.hit, false);
});

test("Workers AI's daily-allocation error is a refusal, with no retry", async () => {
  const { body } = await ask(worker.url, `${Q} 🚫`);
  assert.equal(body.reason, 'model_unavailable');
  assert.match(stageOf(body, 'generate').detail, /refused: .*3036/);
  assert.equal(body.cost.calls, 2, 'the embedding and one generation attempt, no retry');
});

test('a model that hangs is cut off by AI_TIMEOUT_MS', async () => {
  const started = Date.now();
  const { body } = await ask(worker.url, `${Q} ⌛`);
  assert.equal(body.reason, 'model_unavailable');
  assert.match(stageOf(body, 'generate').detail, /timed out/);
  assert.ok(Date.now() - started < 8000);
});

test('weak evidence costs one embedding call and no generation', async () => {
  const { body } = await ask(worker.url, 'Who designed the curtains in the lobby?');
  assert.equal(body.status, 'refused');
  assert.equal(body.reason, 'no_evidence');
  assert.equal(body.cost.calls, 1);
  assert.ok(!stageOf(body, 'generate'));
});

test('an empty answer from the generator is a refusal, not prose', async () => {
  const { body } = await ask(worker.url, `${Q} 🤷`);
  assert.equal(body.status, 'refused');
  assert.equal(body.reason, 'no_evidence');
});

test('removed passages leave the index too', async () => {
  const without = await ingest(worker.url, corpusDocuments().filter((d) => d.name !== 'conduct.md'));
  assert.equal(without.body.removed.length, 7);
  const { body } = await ask(worker.url, 'How long is security camera footage kept?');
  assert.ok(!body.retrieval.some((r) => r.passageId.startsWith('conduct-')), 'no vector match for a removed passage');
  await ingest(worker.url, corpusDocuments());
});

test('every settled request is charged once, and nothing stays reserved', async () => {
  const { reservedNeurons } = await ledger();
  assert.equal(reservedNeurons, 0);
  const rows = d1(worker.persist, 'SELECT count(*) AS open FROM spend_charges WHERE settled_at IS NULL');
  assert.deepEqual(rows, [{ open: 0 }]);
});

test('GET /search fuses vector and BM25 ranks and pays only for the embedding', async () => {
  const before = await ledger();
  const body = await (await fetch(`${worker.url}/search?q=${encodeURIComponent('dedicated desk price')}&k=8`)).json();
  assert.equal(body.results.length, 8);
  assert.ok(body.results.some((r) => r.vectorRank !== null && r.lexicalRank !== null));
  assert.ok(body.results.some((r) => r.lexicalRank === null), 'vector-only matches are fused in');
  assert.equal(body.cost.calls, 1);
  const after = await ledger();
  assert.equal(after.reservedNeurons, before.reservedNeurons);
  assert.ok(after.spentNeurons > before.spentNeurons);
});

test('a streamed request shows each stage the moment it finishes', async () => {
  // 🐢: the generator takes 4 s, past this configuration's AI_TIMEOUT_MS of 3 s.
  const { events } = await askEvents(worker.url, `${Q} 🐢`);
  const at = (name) => events.find((e) => e.event === 'stage' && e.data.name === name).at;
  const result = events.at(-1);
  assert.deepEqual([result.event, result.data.status, result.data.reason], ['result', 'refused', 'model_unavailable']);
  assert.ok(at('generate') - at('evidence') > 2500, `evidence at ${at('evidence')} ms, generate at ${at('generate')} ms: not held back`);
});

test('a client that hangs up mid-stream still gets its reservation settled and its audit row written', async () => {
  const audited = async () => (await (await fetch(`${worker.url}/admin/audit/verify`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()).rows;
  const [before, rowsBefore] = [await ledger(), await audited()];
  const controller = new AbortController();
  const res = await fetch(`${worker.url}/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ question: `How many meeting-room hours does the Dedicated Desk plan include? 🐢` }),
    signal: controller.signal,
  });
  const reader = res.body.getReader();
  await reader.read(); // the first events, then hang up
  assert.ok((await ledger()).reservedNeurons > 0, 'hung up while the request held its reservation');
  controller.abort();
  await new Promise((r) => setTimeout(r, 5000)); // past the generator's 3 s timeout
  const after = await ledger();
  assert.equal(after.reservedNeurons, 0, JSON.stringify(after));
  assert.ok(after.spentNeurons > before.spentNeurons, 'the request was settled, charged what it used');
  assert.equal(await audited(), rowsBefore + 1);
});
