// Test doubles for Workers AI and Vectorize, with the bindings' method shapes and
// plausible outputs: embeddings as { shape, data }, chat as { response, usage },
// Vectorize as { matches } with cosine scores. The generator and judge behave
// like careful models by default (the judge decomposes the answer into claims
// and scores them in one call); markers in the question (emoji, which the
// worker's tokenizer ignores) script faults per test. Fabrications, each
// appended to the answer as a sentence of its own:
//   🔢 a changed number          🔀 a swapped entity            🆕 an invented sentence
//   🙅 a negation flip           🔡 a swapped entity, lowercase 🔤 a changed number, in words
//   💱 a changed unit or currency  📅 a shifted day, month or time
//   🧾 a made-up code span (a path no passage writes)
//   🙈 an invented sentence that the judge's decomposition leaves out
// And the rest:
//   🤥 the judge is fooled: every claim 0.9
//   👻 cite a passage id that was not retrieved   🤷 answer empty (the passages do not answer)
//   🏷 the answer writes its first amount as a code span (`$450`), as the passage states it
//   🧩 broken JSON once, then valid on repair     🧨 broken JSON every time
//   💥 model error (in a text to embed too)       🚫 daily allocation used up (error 3036)
//   🐢 answer after 4 s    🦥 answer after 8 s     ⌛ answer after 10 s (past AI_TIMEOUT_MS)
// Every input is first checked against its model's published schema (validate).
// Scripted from the eval cases (scripts/bench-judge): the question is looked up
// in evals/, and
//   📜 the generator answers with the case's `reference` (a right answer in a model's words)
//   🃏 the generator answers with the case's `wrongReference` (a fluent wrong one)
//   💯 the judge is perfect: 1.0 for a claim when a retrieved passage states the
//      case's answer (its gold passages), citing it; 0 when none was retrieved
//   🧠 the embedding reads meaning as well: the question, and each of its words
//      embedded beside it, lies near the case's gold passages (see meaning)
import { WorkerEntrypoint } from 'cloudflare:workers';
import harbor from '../../evals/cases.json';
import harborNatural from '../../evals/harbor-natural.json';
import billwren from '../../evals/billwren.json';
import billwrenNatural from '../../evals/billwren-natural.json';
import debian from '../../evals/debian-policy/questions.json';

const DIMENSIONS = 768;
const STOP = new Set('a an the of to in on at for with by from and or but if is are was were be been do does did can could would should will may might must i me my we our you your it its they them their this that these those there here what which who whom when where why how much many per not no'.split(' '));

function words(text) {
  return (text.toLowerCase().match(/[a-z0-9]+/g) || []).filter((w) => !STOP.has(w)).map((w) => (w.length > 3 && w.endsWith('s') ? w.slice(0, -1) : w));
}

// Hashed bag of words plus one component every text shares, so similarities
// sit where a real sentence-embedding model's do: unrelated texts near 0.45,
// related ones 0.6 to 0.9.
function embed(text) {
  const v = new Array(DIMENSIONS).fill(0);
  for (const w of words(text)) {
    let h = 2166136261;
    for (const c of w) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
    v[1 + (h % (DIMENSIONS - 1))] += 1;
  }
  const bow = Math.hypot(...v) || 1;
  for (let i = 1; i < DIMENSIONS; i++) v[i] /= bow;
  v[0] = 0.9;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const tokens = (text) => Math.ceil(text.length / 4);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// (Not after "e.g." or "i.e.", which a judge reads as part of their sentence.)
const sentences = (text) => text.split(/(?<=[.!?])(?<!\b(?:e\.g|i\.e)\.)\s+(?=[A-Z0-9])/).map((s) => s.trim()).filter(Boolean);

function passagesOf(content) {
  return [...content.matchAll(/<passage id="([^"]+)" section="[^"]*">\n([\s\S]*?)\n<\/passage>/g)].map((m) => ({ id: m[1], text: m[2] }));
}

function overlap(a, b) {
  const wa = new Set(words(a));
  const wb = new Set(words(b));
  if (wa.size === 0) return 0;
  return [...wa].filter((w) => wb.has(w)).length / wa.size;
}

function best(text, passages) {
  let top = { id: null, score: 0 };
  for (const p of passages) {
    const score = overlap(text, p.text);
    if (score > top.score) top = { id: p.id, score };
  }
  return top;
}

const UNITS = ['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
function inWords(n) {
  if (n < 20) return UNITS[n] || 'zero';
  if (n < 100) return TENS[Math.floor(n / 10)] + (n % 10 ? `-${UNITS[n % 10]}` : '');
  if (n < 1000) return `${UNITS[Math.floor(n / 100)]} hundred${n % 100 ? ` and ${inWords(n % 100)}` : ''}`;
  return `${inWords(Math.floor(n / 1000))} thousand${n % 1000 ? ` ${inWords(n % 1000)}` : ''}`;
}
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function swapEntity(sentence, passages, lower = false) {
  const entities = [...new Set(passages.flatMap((p) => p.text.match(/\b(?!The\b|A\b)[A-Z][a-z]+(?: [A-Z][a-z]+)+\b/g) || []))];
  const mine = entities.find((e) => sentence.includes(e));
  // Another entity: not the same name inflected ("Day Passes" is not a swap for "Day Pass").
  const words = (e) => e.toLowerCase().split(' ').map((w) => w.replace(/s$/, ''));
  const other = entities.find((e) => !e.startsWith('Harbor') && (!mine || !words(e).some((w) => words(mine).includes(w))));
  const name = lower ? (other ?? 'Lighthouse Room').toLowerCase() : other ?? 'The Lighthouse Room';
  return mine && other ? sentence.replace(mine, name) : `${lower ? `At the ${name}, ` : `${name} `}${sentence.charAt(0).toLowerCase()}${sentence.slice(1)}`;
}

function fabricate(kind, sentence, passages) {
  switch (kind) {
    case '🔢': return /\d/.test(sentence) ? sentence.replace(/\d+/, (n) => String(Number(n) + 7)) : sentence.replace(/\.$/, ' within 97 days.');
    case '🔀': return swapEntity(sentence, passages);
    case '🔡': return swapEntity(sentence, passages, true);
    // The statement's negation flipped: a "not" or "never" removed, or a "not" added.
    case '🙅': return / (not|never) /.test(sentence)
      ? sentence.replace(/ (not|never) /, ' ')
      : / (is|are|can|will|must) /.test(sentence) ? sentence.replace(/ (is|are|can|will|must) /, ' $1 not ') : `It is not true that ${sentence.charAt(0).toLowerCase()}${sentence.slice(1)}`;
    // A changed amount or count (not a clock time or a date) written out in words.
    case '🔤': {
      const standalone = /(?<![\d:])\$?\d[\d,]*(\.\d+)?(?![\d:]|st|nd|rd|th)/;
      return standalone.test(sentence)
        ? sentence.replace(standalone, (n) => `${inWords(Math.round(Number(n.replace(/[$,]/g, ''))) + 7)}${n.startsWith('$') ? ' dollars' : ''}`)
        : sentence.replace(/\.$/, ' within ninety-seven days.');
    }
    // The same number in another unit: another currency, another measure, or pm for am.
    case '💱': {
      if (/\$\d/.test(sentence)) return sentence.replace(/\$(\d[\d,.]*)/, '€$1');
      if (/\d+ (percent|days?|hours?|months?|weeks?)/.test(sentence)) {
        return sentence.replace(/(\d+) (percent|days?|hours?|months?|weeks?)/, (_, n, unit) => `${n} ${{ percent: 'dollars', day: 'weeks', days: 'weeks', hour: 'days', hours: 'days', month: 'years', months: 'years', week: 'months', weeks: 'months' }[unit]}`);
      }
      if (/\d:\d\d (am|pm)/.test(sentence)) return sentence.replace(/(\d:\d\d) (am|pm)/, (_, t, m) => `${t} ${m === 'am' ? 'pm' : 'am'}`);
      return sentence.replace(/\.$/, ' for €97.');
    }
    case '📅': {
      const day = DAYS.find((d) => sentence.includes(d));
      if (day) return sentence.replaceAll(day, DAYS[(DAYS.indexOf(day) + 3) % 7]);
      const month = MONTHS.find((m) => sentence.includes(m));
      if (month) return sentence.replaceAll(month, MONTHS[(MONTHS.indexOf(month) + 3) % 12]);
      if (/\d{1,2}:\d\d/.test(sentence)) return sentence.replace(/(\d{1,2}):(\d\d)/, (_, h, m) => `${(Number(h) % 12) + 1}:${m}`);
      return sentence.replace(/\.$/, ' every Tuesday in March.');
    }
    case '🧾': return sentence.replace(/\.$/, ', as set in `/etc/harbor/desks.conf`.');
    default: return 'Every member also receives a free reserved spot for one car in the garage.';
  }
}

const FABRICATIONS = ['🔢', '🔀', '🆕', '🙅', '🔡', '🔤', '💱', '📅', '🙈', '🧾'];

// The eval cases by question (markers stripped), for the scripted modes.
const MARKERS = /[\u{1F000}-\u{1FAFF}\u{2300}-\u{23FF}\u{2600}-\u{27BF}\u{FE0F}]/gu;
const CASES = new Map([...harbor, ...harborNatural, ...billwren, ...billwrenNatural, ...debian].map((c) => [c.question, c]));
const scriptedCase = (question) => CASES.get(question.replace(MARKERS, '').trim());

/** The retrieved passages that state a case's answer: its gold passage ids,
 * or (Debian Policy) the passages of its gold sections. */
function gold(c, user) {
  const fenced = [...user.matchAll(/<passage id="([^"]+)" section="([^"]*)">/g)].map((m) => ({ id: m[1], section: m[2] }));
  return fenced
    .filter((p) => (c.passages ?? []).includes(p.id) || (c.gold ?? []).some((g) => p.section === g || p.section.startsWith(`${g} `)))
    .map((p) => p.id);
}

/** 📜 / 🃏: the case's reference (or wrong reference), citing the passages that
 * state its answer, else the one it shares most words with. */
function scripted(question, user) {
  const c = scriptedCase(question);
  const answer = question.includes('📜') ? c?.reference : c?.wrongReference;
  if (!answer) return null;
  const stated = question.includes('📜') ? gold(c, user) : [];
  const citations = stated.length ? stated : [best(answer, passagesOf(user)).id].filter(Boolean);
  return JSON.stringify({ answer, citations });
}

function generate(user, repairing) {
  const question = user.split('Question: ').pop();
  const passages = passagesOf(user);
  if (question.includes('🧨') || (question.includes('🧩') && !repairing)) return 'Sure! {"answer": "The desk costs';
  if (question.includes('🤷')) return JSON.stringify({ answer: '', citations: [] });
  if (question.includes('📜') || question.includes('🃏')) return scripted(question, user) ?? JSON.stringify({ answer: '', citations: [] });
  let top = { score: 0 };
  for (const p of passages) {
    for (const s of sentences(p.text)) {
      const score = overlap(question, s);
      if (score > top.score) top = { score, id: p.id, sentence: s };
    }
  }
  if (!top.sentence) return JSON.stringify({ answer: '', citations: [] });
  let answer = top.sentence;
  const citations = [top.id];
  for (const kind of FABRICATIONS) {
    if (question.includes(kind)) answer += ` ${fabricate(kind, top.sentence, passages)}`;
  }
  if (question.includes('🏷')) answer = answer.replace(/\$\d[\d,]*/, (amount) => `\`${amount}\``);
  if (question.includes('🤥')) answer += ' 🤥';
  if (question.includes('👻')) citations.push('pricing-99');
  return '```json\n' + JSON.stringify({ answer, citations }) + '\n```';
}

// The rewriter: the question's words, and the headings that share a word
// with it (a careful small model keeps the question and borrows the
// documents' terms).
function rewrite(user) {
  const question = user.split('Question: ').pop();
  const asked = new Set(words(question));
  const headings = [...user.matchAll(/<heading>(.*?)<\/heading>/g)].map((m) => m[1]);
  const related = headings.filter((h) => words(h).some((w) => asked.has(w)));
  return JSON.stringify({ query: [question, ...related].join(' ') });
}

// The judge: decomposes the answer into one claim per sentence and scores each
// against the passages, in one reply, and says whether the answer answers the
// question. Fooled (🤥 in the answer or the question), it scores every claim
// 0.9 and says it answers; perfect (💯), it scores by the case's gold passages;
// asked to (🙈 in the question), it leaves the answer's last sentence out.
function judge(user) {
  const passages = passagesOf(user);
  const question = user.split('Question: ').pop().split('\n\nAnswer: ')[0];
  const answer = user.split('<answer>\n').pop().replace(/\n<\/answer>$/, '').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
  const fooled = answer.includes('🤥') || question.includes('🤥');
  let said = sentences(answer.replace('🤥', '').trim());
  if (question.includes('🙈')) said = said.slice(0, -1);
  const perfect = question.includes('💯') ? scriptedCase(question) : null;
  const stated = perfect ? gold(perfect, user) : [];
  const claims = said.map((text) => {
    const top = best(text, passages);
    if (fooled) return { claim: text, score: 0.9, passages: top.id ? [top.id] : [] };
    if (perfect) return { claim: text, score: stated.length ? 1 : 0, passages: stated };
    const exact = passages.find((p) => p.text.includes(text.trim()));
    if (exact) return { claim: text, score: 1, passages: [exact.id] };
    return { claim: text, score: Math.round(top.score * 100) / 100, passages: top.score >= 0.5 ? [top.id] : [] };
  });
  const supported = claims.filter((c) => c.score >= 0.5).length;
  const answers = fooled || (supported > 0 && supported === claims.length) ? 'yes' : supported > 0 ? 'partly' : 'no';
  return JSON.stringify({ claims, answers, missing: answers === 'yes' ? [] : ['what the passages do not state'] });
}

// Each model's input schema as @cloudflare/workers-types publishes it
// (AiModels[model]["inputs"]; the chat models' `messages` form): the fields it
// has, and a check of each value. Workers AI rejects any other field with an
// input-validation error (5006), and so does the double.
const isText = (v) => typeof v === 'string';
const isNumber = (v) => typeof v === 'number' && Number.isFinite(v);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isMessages = (v) => Array.isArray(v) && v.length > 0 && v.every((m) => isObject(m) && isText(m.role) && isText(m.content));
const SAMPLING = { max_tokens: Number.isInteger, temperature: isNumber, top_p: isNumber, top_k: isNumber, seed: Number.isInteger, repetition_penalty: isNumber, frequency_penalty: isNumber, presence_penalty: isNumber, raw: (v) => typeof v === 'boolean', stream: (v) => typeof v === 'boolean' };
const RESPONSE_FORMAT = (v) => isObject(v) && ['json_object', 'json_schema'].includes(v.type);
const EMBEDDING = { required: ['text'], fields: { text: (v) => isText(v) || (Array.isArray(v) && v.every(isText)), pooling: (v) => ['mean', 'cls'].includes(v) } };
const INPUTS = {
  '@cf/baai/bge-small-en-v1.5': EMBEDDING,
  '@cf/baai/bge-base-en-v1.5': EMBEDDING,
  '@cf/baai/bge-large-en-v1.5': EMBEDDING,
  '@cf/meta/llama-3.3-70b-instruct-fp8-fast': { required: ['messages'], fields: { messages: isMessages, response_format: RESPONSE_FORMAT, ...SAMPLING } },
  '@cf/meta/llama-3.2-3b-instruct': { required: ['messages'], fields: { messages: isMessages, response_format: RESPONSE_FORMAT, ...SAMPLING } },
  '@cf/mistralai/mistral-small-3.1-24b-instruct': { required: ['messages'], fields: { messages: isMessages, guided_json: isObject, ...SAMPLING } },
};
// AiOptions' fields, and GatewayOptions' (the `gateway` of the third argument).
const OPTIONS = ['gateway', 'queueRequest', 'websocket', 'tags', 'returnRawResponse', 'prefix', 'extraHeaders', 'signal'];
const GATEWAY = { id: (v) => isText(v) && v.length > 0, cacheKey: isText, cacheTtl: isNumber, skipCache: (v) => typeof v === 'boolean', metadata: isObject, collectLog: (v) => typeof v === 'boolean', eventId: isText, requestTimeoutMs: isNumber, retries: isObject };

/** Throws what Workers AI throws for an input its model's schema rejects. */
function validate(model, input, options) {
  const schema = INPUTS[model];
  if (!schema) throw new Error(`AiDouble: no published input schema for ${model} here; add it to INPUTS`);
  const invalid = (why) => new Error(`AiError: 5006: Error: input validation failed for ${model}: ${why}`);
  if (!isObject(input)) throw invalid("'/' must be an object");
  for (const field of schema.required) if (!(field in input)) throw invalid(`required property '/${field}' is missing`);
  for (const [field, value] of Object.entries(input)) {
    const check = schema.fields[field];
    if (!check) throw invalid(`additional property '/${field}' is not allowed`);
    if (!check(value)) throw invalid(`'/${field}' has the wrong type`);
  }
  if (options === undefined) return;
  if (!isObject(options) || Object.keys(options).some((k) => !OPTIONS.includes(k))) throw new TypeError(`AI.run: unknown options ${JSON.stringify(options)}`);
  if (options.gateway !== undefined) {
    const gateway = options.gateway;
    if (!isObject(gateway) || !GATEWAY.id(gateway.id) || Object.entries(gateway).some(([k, v]) => !GATEWAY[k]?.(v))) throw new TypeError(`AI.run: invalid gateway options ${JSON.stringify(gateway)}`);
  }
}

/** 🧠 the embedding reads meaning as the perfect judge does: a scripted
 * case's question, and each word of it embedded beside it, means what the
 * case's gold passages say (their stored vectors' mean). An unanswerable case
 * has no gold passage: its texts keep the hashed embedding. */
function meaning(c) {
  if (!c) return null;
  const gold = [...index.values()].filter((v) => (c.passages ?? []).includes(v.id) || (c.gold ?? []).some((g) => v.metadata?.section === g || v.metadata?.section?.startsWith(`${g} `)));
  if (gold.length === 0) return null;
  const sum = gold.reduce((acc, v) => acc.map((x, i) => x + v.values[i]), new Array(DIMENSIONS).fill(0));
  const norm = Math.hypot(...sum) || 1;
  return sum.map((x) => x / norm);
}

/** A single word of the question (read by meaning beside it). */
const asks = (question, text) => !/\s/.test(text.trim()) && words(text).some((w) => words(question).includes(w));

export class AiDouble extends WorkerEntrypoint {
  async run(model, input, options) {
    validate(model, input, options);
    if (model.includes('/baai/bge')) {
      if (input.text.some((t) => t.includes('💥'))) throw new Error('AiError: 5007: internal model error');
      const meant = input.text[0].includes('🧠') ? meaning(scriptedCase(input.text[0])) : null;
      const data = input.text.map((t, i) => (meant && (i === 0 || asks(input.text[0], t)) ? meant : embed(t)));
      return { shape: [data.length, DIMENSIONS], data };
    }
    const system = input.messages[0].content;
    const user = input.messages[1].content;
    const question = user.includes('Question: ') ? user.split('Question: ').pop() : user;
    if (question.includes('💥')) throw new Error('AiError: 5007: internal model error');
    if (question.includes('🚫')) throw new Error('AiError: 3036: Account limited: you have used up your daily free allocation of 10,000 neurons');
    if (question.includes('🐢')) await sleep(4000);
    if (question.includes('🦥')) await sleep(8000);
    if (question.includes('⌛')) await sleep(10000);
    const repairing = input.messages.some((m) => m.role === 'assistant');
    let response;
    if (system.startsWith('You turn a question')) response = rewrite(user);
    else if (system.startsWith('You answer questions')) response = generate(user, repairing);
    else response = judge(user);
    const prompt = input.messages.map((m) => m.content).join('\n');
    return { response, usage: { prompt_tokens: tokens(prompt), completion_tokens: tokens(response), total_tokens: tokens(prompt) + tokens(response) } };
  }
}

const index = new Map();

/** Vectorize's metadata filter: each key a value (implicit $eq) or an
 * object of $eq, $ne, $in, $nin; every key must pass. */
function passes(metadata, filter) {
  return Object.entries(filter).every(([key, condition]) => {
    const value = metadata[key];
    if (condition === null || typeof condition !== 'object') return value === condition;
    return Object.entries(condition).every(([op, operand]) => {
      switch (op) {
        case '$eq': return value === operand;
        case '$ne': return value !== operand;
        case '$in': return operand.includes(value);
        case '$nin': return !operand.includes(value);
        default: throw new Error(`VectorizeDouble: unsupported filter operator ${op}`);
      }
    });
  });
}

export class VectorizeDouble extends WorkerEntrypoint {
  async describe() {
    return { dimensions: DIMENSIONS, vectorCount: index.size, processedUpToMutation: 0 };
  }

  async upsert(vectors) {
    // Vectorize refuses a vector id over 64 bytes.
    const long = vectors.find((v) => new TextEncoder().encode(v.id).length > 64);
    if (long) throw new Error(`VECTOR_UPSERT_ERROR: id "${long.id}" is over 64 bytes`);
    for (const v of vectors) index.set(v.id, v);
    return { mutationId: crypto.randomUUID(), count: vectors.length };
  }

  async deleteByIds(ids) {
    for (const id of ids) index.delete(id);
    return { mutationId: crypto.randomUUID(), count: ids.length };
  }

  async getByIds(ids) {
    return ids.filter((id) => index.has(id)).map((id) => index.get(id));
  }

  async query(vector, options = {}) {
    const matches = [...index.values()]
      .filter((v) => passes(v.metadata ?? {}, options.filter ?? {}))
      .map((v) => ({ id: v.id, score: v.values.reduce((s, x, i) => s + x * vector[i], 0), metadata: v.metadata }))
      .sort((a, b) => b.score - a.score)
      .slice(0, options.topK ?? 5)
      .map((m) => (options.returnMetadata && options.returnMetadata !== 'none' ? m : { id: m.id, score: m.score }));
    return { matches, count: matches.length };
  }
}

export default {
  async fetch() {
    return new Response('groundgate test doubles: bind AiDouble and VectorizeDouble by service binding', { status: 404 });
  },
};
