// Converts the Debian Policy Manual's reStructuredText sources (as shipped in
// the debian-policy package, policy.html/_sources/*.rst.txt) into one Markdown
// file per chapter and appendix, for the reference-heavy benchmark in
// evals/debian-policy. Run through scripts/debian-policy-corpus, which fetches
// and unpacks the package; this file only converts.
//
//   node scripts/debian-policy-corpus.mjs SOURCES_DIR OUT_DIR [HTML_DIR]
//
// Output shape (what the chunker relies on):
//   # 4. Source packages                       chapter title, with its number
//   # Appendix C. Source packages (...)        appendix title, lettered
//   ## 4.9.1 debian/rules and DEB_BUILD_OPTIONS  every numbered section, any depth
// Cross references become readable text naming the target by number and
// title: :ref:`s-debianrules` -> "Section 4.9 (Main building script:
// debian/rules)"; :ref:`text <label>` -> "text (Section N, Title)";
// :doc:`ch-binary` -> "Chapter 3 (Binary packages)". Footnotes are appended to the end of the section that cites
// them. Literal and code blocks are kept, indented four spaces (no fences:
// the chunker joins lines and knows nothing of fences). Figures keep only
// their caption. Index entries, comments, toctrees and includes are dropped.
//
// Numbering: chapters are numbered in the order of the first toctree in
// index.rst.txt, sections in order of appearance at each level (as Sphinx
// does). Sphinx restarts the numbering at 1 for the appendix toctree, which
// would collide with chapter numbers (appendix "4.2" vs chapter "4.2"), so
// appendices are lettered by their position in that toctree (1 -> A, 2 -> B,
// ...), the letter standing in for the HTML's leading number. When HTML_DIR
// is given, the computed numbers are checked against the HTML headings.

import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const [srcDir, outDir, htmlDir] = process.argv.slice(2);
if (!srcDir || !outDir) {
  console.error('usage: node debian-policy-corpus.mjs SOURCES_DIR OUT_DIR [HTML_DIR]');
  process.exit(2);
}

// ---------------------------------------------------------------- toctrees --

function toctrees(indexText) {
  const trees = [];
  const lines = indexText.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^\.\. toctree::/.test(lines[i])) continue;
    const entries = [];
    for (i++; i < lines.length && (lines[i] === '' || /^\s/.test(lines[i])); i++) {
      const t = lines[i].trim();
      if (t && !t.startsWith(':')) entries.push(t);
    }
    i--;
    trees.push(entries);
  }
  return trees;
}

const trees = toctrees(readFileSync(join(srcDir, 'index.rst.txt'), 'utf8'));
if (trees.length < 2) throw new Error('index.rst.txt: expected two toctrees (chapters, appendices)');
const SKIP = new Set(['upgrading-checklist']);
const docs = []; // { stem, prefix, kind }
trees[0].forEach((stem, i) => docs.push({ stem, prefix: String(i + 1), kind: 'chapter' }));
trees[1].forEach((stem, i) => docs.push({ stem, prefix: String.fromCharCode(65 + i), kind: 'appendix', htmlPrefix: String(i + 1) }));

// ------------------------------------------------------------- structure ----

const ADORN = /^([=\-~^"'`#*+<>:._])\1{2,}\s*$/;
const indentOf = (l) => l.match(/^ */)[0].length;

// Split a document into sections: [{ level, title, labels, body: [lines] }].
function splitSections(text) {
  const lines = text.replace(/\t/g, '        ').split('\n');
  const styles = []; // adornment keys in order of first appearance
  const sections = [];
  let cur = { level: 0, title: null, labels: [], body: [] };
  let pendingLabels = [];
  const levelOf = (key) => {
    if (!styles.includes(key)) styles.push(key);
    return styles.indexOf(key) + 1;
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const prevBlank = i === 0 || lines[i - 1].trim() === '';
    let title = null, key = null, skip = 0;
    if (prevBlank && ADORN.test(l) && i + 2 < lines.length && lines[i + 1].trim() &&
        !ADORN.test(lines[i + 1]) && lines[i + 2].trim() === l.trim()) {
      title = lines[i + 1].trim(); key = 'o' + l[0]; skip = 2;
    } else if (prevBlank && l.trim() && indentOf(l) === 0 && !ADORN.test(l) &&
               i + 1 < lines.length && ADORN.test(lines[i + 1]) &&
               lines[i + 1].trim().length >= Math.min(l.trim().length, 4) &&
               (i + 2 >= lines.length || lines[i + 2].trim() === '')) {
      title = l.trim(); key = 'u' + lines[i + 1][0]; skip = 1;
    }
    if (title !== null) {
      sections.push(cur);
      cur = { level: levelOf(key), title, labels: pendingLabels, body: [] };
      pendingLabels = [];
      i += skip;
      continue;
    }
    const lab = l.match(/^\.\. _([^:`]+):\s*$/);
    if (lab) { pendingLabels.push(lab[1].trim().toLowerCase()); continue; }
    if (l.trim() && pendingLabels.length) {
      // A label not followed by a heading: attach it to the current section.
      cur.labels.push(...pendingLabels);
      pendingLabels = [];
    }
    cur.body.push(l);
  }
  sections.push(cur);
  return sections.filter((s) => s.title !== null || s.body.some((l) => l.trim()));
}

// --------------------------------------------------------- load and number --

const files = [];
const labels = new Map(); // label -> { num, title, kind }
const docTargets = new Map(); // stem -> { num, title, kind }
for (const d of docs) {
  const path = join(srcDir, `${d.stem}.rst.txt`);
  if (!existsSync(path)) throw new Error(`missing source ${path}`);
  const text = readFileSync(path, 'utf8');
  const secs = splitSections(text);
  if (secs[0].title === null) {
    // Text before the title (rare): fold into the title section.
    const pre = secs.shift();
    secs[0].body.unshift(...pre.body);
  }
  const counters = [];
  for (const s of secs) {
    if (s.level === 1) { s.num = d.prefix; counters.length = 0; continue; }
    const depth = s.level - 1; // 1 for a top-level section
    counters.length = depth;
    counters[depth - 1] = (counters[depth - 1] || 0) + 1;
    for (let k = 0; k < depth; k++) counters[k] ||= 1;
    s.num = [d.prefix, ...counters].join('.');
  }
  const title = plainTitle(secs[0].title);
  // Documents left out of the corpus are referred to by title alone.
  const skipped = SKIP.has(d.stem);
  const target = { num: d.prefix, title, kind: skipped ? 'skipped' : d.kind };
  docTargets.set(d.stem, target);
  for (const s of secs) {
    s.plain = plainTitle(s.title);
    const t = s.level === 1 || skipped ? target : { num: s.num, title: s.plain, kind: 'section' };
    for (const lab of s.labels) labels.set(lab, t);
  }
  files.push({ ...d, text, secs });
}

function plainTitle(t) {
  return t.replace(/``([^`]+)``/g, '$1').replace(/:[a-z]+:`([^`<]*?)(?:\s*<[^>]*>)?`/g, '$1')
    .replace(/\\(.)/g, '$1').replace(/ -- /g, ' – ').replace(/\s+/g, ' ').trim();
}

function describe(t) {
  if (t.kind === 'chapter') return { ref: `Chapter ${t.num}`, title: t.title };
  if (t.kind === 'appendix') return { ref: `Appendix ${t.num}`, title: t.title };
  return { ref: `Section ${t.num}`, title: t.title };
}

// ------------------------------------------------------------------ inline --

const norm = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
const unresolved = new Set();

function renderRef(text, target, fallback) {
  if (!target) {
    unresolved.add(fallback);
    return text || fallback;
  }
  if (target.kind === 'skipped') return text || target.title;
  const { ref, title } = describe(target);
  // `section\_title <#label>`__ in the sources is a leftover placeholder.
  if (!text || /^section\\?_title$/i.test(text)) return `${ref} (${title})`;
  if (norm(text) === norm(title)) return `${title} (${ref})`;
  return `${text} (${ref}, ${title})`;
}

function inline(s, ctx) {
  const out = s.replace(
    /``(.+?)``|:(ref|doc|manpage|file|command|program|samp|envvar|term|abbr|dfn|kbd):`([^`]+)`|`([^`]*?)\s*<([^>]+)>`__?|`([^`]+)`__?|\|([^|]+)\|_{0,2}|\[#[^\]]*\]_/g,
    (m, lit, role, rtext, ltext, lurl, ntext, sub) => {
      if (lit !== undefined) return '`' + lit + '`';
      if (role) {
        const mm = rtext.match(/^([\s\S]*?)\s*<([^>]+)>$/);
        const text = mm ? mm[1].trim() : '';
        const target = (mm ? mm[2] : rtext).trim();
        if (role === 'ref') return renderRef(text, labels.get(target.toLowerCase()), target);
        if (role === 'doc') {
          const stem = target.replace(/\.rst$/, '').replace(/^\//, '');
          return renderRef(text, docTargets.get(stem), stem);
        }
        return text || target; // manpage, file, ...
      }
      if (lurl !== undefined) {
        if (lurl.startsWith('#')) {
          return renderRef(ltext.trim(), labels.get(lurl.slice(1).toLowerCase()), lurl.slice(1));
        }
        return ltext ? `${ltext.trim()} (${lurl})` : lurl;
      }
      if (ntext !== undefined) return ntext;
      if (sub !== undefined) {
        const v = ctx.subs.get(sub);
        return v !== undefined ? inline(v, ctx) : m;
      }
      // auto-numbered footnote reference
      ctx.fnRefs.push(ctx.section);
      return ` [${ctx.fnRefs.length}]`;
    },
  );
  // rst escapes and smart dashes, outside inline literals
  return out.split(/(`[^`]*`)/).map((part, i) => {
    if (i % 2) return part;
    return part.replace(/\\ /g, '').replace(/\\(.)/g, '$1').replace(/ --- /g, ' — ').replace(/ -- /g, ' – ');
  }).join('').replace(/ {2,}/g, ' ').trim();
}

// ------------------------------------------------------------------ blocks --

const LIST = /^([-*+]|\d+\.|#\.|\(\d+\)|\d+\)|[a-z]\.|[ivx]+\.)( +)(?=\S)/;
const CODE_DIRECTIVES = new Set(['code-block', 'code', 'sourcecode', 'parsed-literal', 'literalinclude']);
const ADMONITIONS = new Set(['note', 'warning', 'important', 'tip', 'caution', 'attention', 'hint', 'danger', 'error', 'admonition', 'seealso']);

function dedent(lines) {
  const ind = Math.min(...lines.filter((l) => l.trim()).map(indentOf));
  return lines.map((l) => l.slice(Number.isFinite(ind) ? ind : 0));
}
function trimBlank(lines) {
  let a = 0, b = lines.length;
  while (a < b && !lines[a].trim()) a++;
  while (b > a && !lines[b - 1].trim()) b--;
  return lines.slice(a, b);
}
// Lines after `start` that belong to a construct indented at `ind`.
function takeIndented(lines, start, ind) {
  let j = start;
  while (j < lines.length && (!lines[j].trim() || indentOf(lines[j]) > ind)) j++;
  while (j > start && !lines[j - 1].trim()) j--;
  return j;
}

// Returns blocks: { t: 'p'|'li'|'code'|'term', text, marker }
function blocks(lines, ctx) {
  const out = [];
  let i = 0;
  let autoNum = 0; // for `#.` lists
  while (i < lines.length) {
    const l = lines[i];
    if (!l.trim()) { i++; continue; }
    const ind = indentOf(l);
    const body = l.slice(ind);
    if (!LIST.test(body)) autoNum = 0;

    if (body === '..' || body.startsWith('.. ')) {
      const end = takeIndented(lines, i + 1, ind);
      const rest = lines.slice(i + 1, end);
      i = end;
      const head = body.slice(3);
      const fn = head.match(/^\[#[^\]]*\]\s*(.*)$/);
      if (fn) {
        // The footnote text starts after `.. [#] `, continuation lines align with it.
        const first = ' '.repeat(ind + body.length - fn[1].length) + fn[1];
        ctx.fnDefs.push(blocks(dedent([first, ...rest]), ctx));
        continue;
      }
      const dir = head.match(/^([a-z][\w-]*)::\s*(.*)$/);
      if (!dir) continue; // label, comment, hyperlink target, substitution handled elsewhere
      const name = dir[1];
      let content = trimBlank(rest);
      while (content.length && /^\s*:[\w-]+:/.test(content[0])) content.shift();
      content = dedent(trimBlank(content));
      if (CODE_DIRECTIVES.has(name)) {
        let code = content;
        if (name === 'parsed-literal') {
          code = code.map((c) => c.replace(/\*([^*\s][^*]*?)\*/g, '$1').replace(/\\(.)/g, '$1'));
        }
        if (code.length) out.push({ t: 'code', text: code.join('\n') });
      } else if (name === 'figure' || name === 'image') {
        const cap = blocks(content, ctx).filter((b) => b.t === 'p').map((b) => b.text).join(' ');
        if (cap) out.push({ t: 'p', text: `Figure: ${cap}` });
      } else if (ADMONITIONS.has(name)) {
        const inner = blocks(content, ctx);
        if (inner.length && inner[0].t === 'p') inner[0].text = `Note: ${inner[0].text}`;
        out.push(...inner);
      }
      // index, toctree, include, only, ... carry no prose: dropped
      continue;
    }

    // line block: "| text" lines
    if (/^\| /.test(body)) {
      while (i < lines.length && lines[i].trim() && indentOf(lines[i]) === ind && /^\s*\| /.test(lines[i])) {
        out.push({ t: 'li', marker: '-', text: inline(lines[i].trim().slice(2), ctx) });
        i++;
      }
      continue;
    }

    const lm = body.match(LIST);
    if (lm) {
      let col = ind + lm[1].length + lm[2].length;
      // Sloppy sources indent continuation lines past the item text
      // ("- text" then "   more"); read that as one paragraph, not as a
      // definition list.
      if (i + 1 < lines.length && lines[i + 1].trim() && indentOf(lines[i + 1]) > col) col = indentOf(lines[i + 1]);
      let j = i + 1;
      while (j < lines.length && (!lines[j].trim() || indentOf(lines[j]) >= col)) j++;
      while (j > i + 1 && !lines[j - 1].trim()) j--;
      const item = [' '.repeat(col) + body.slice(lm[1].length + lm[2].length).trimStart(), ...lines.slice(i + 1, j)];
      i = j;
      const inner = blocks(dedent(item), ctx);
      autoNum = lm[1] === '#.' ? autoNum + 1 : 0;
      const marker = /^[-*+]$/.test(lm[1]) ? '-' : lm[1] === '#.' ? `${autoNum}.` : lm[1];
      if (inner.length && inner[0].t === 'p') {
        out.push({ t: 'li', marker, text: inner.shift().text });
      } else {
        out.push({ t: 'li', marker, text: '' });
      }
      out.push(...inner);
      continue;
    }

    // paragraph (or definition-list term)
    const para = [];
    let j = i;
    while (j < lines.length && lines[j].trim() && indentOf(lines[j]) === ind) para.push(lines[j++].trim());
    if (para.length === 1 && j < lines.length && lines[j].trim() && indentOf(lines[j]) > ind) {
      // definition list: term, then an indented definition
      const end = takeIndented(lines, j, ind);
      out.push({ t: 'term', text: inline(para[0], ctx) });
      out.push(...blocks(dedent(lines.slice(j, end)), ctx));
      i = end;
      continue;
    }
    i = j;
    let text = para.join(' ');
    let literal = false;
    if (/::$/.test(text)) {
      literal = true;
      text = text === '::' ? '' : /\s::$/.test(text) ? text.replace(/\s*::$/, '') : text.replace(/::$/, ':');
    }
    if (text) out.push({ t: 'p', text: inline(text, ctx) });
    if (literal) {
      const end = takeIndented(lines, i, ind);
      const code = dedent(trimBlank(lines.slice(i, end)));
      if (code.length) out.push({ t: 'code', text: code.join('\n') });
      i = end;
    }
  }
  return out;
}

// `intro`: the text under the `#` title, where a `# ` line would be read as
// the title.
function renderBlocks(bs, intro) {
  const parts = [];
  const heading = intro ? /^(\s*)(#+\s)/ : /^(\s*)(##+\s)/;
  for (const b of bs) {
    // Indented, not fenced: the chunker reads lines, not fences, so fence
    // markers would end up in passages. A code line that reads like a
    // heading (`## x`) would split the section, so it is escaped.
    if (b.t === 'code') {
      parts.push(b.text.split('\n').map((c) => (c.trim() ? '    ' + c.replace(heading, '$1\\$2') : '')).join('\n'));
    }
    else if (b.t === 'li') parts.push(`${b.marker} ${escapeLead(b.text)}`.trimEnd());
    else if (b.t === 'term') parts.push(`**${b.text.replace(/\*\*/g, '')}**`);
    else parts.push(escapeLead(b.text));
  }
  return parts.join('\n\n');
}
// A prose line must not start a Markdown heading or a stray list.
const escapeLead = (s) => s.replace(/^(#+\s)/, '\\$1');

// ------------------------------------------------------------------ output --

mkdirSync(outDir, { recursive: true });
let nSections = 0, nFiles = 0;
const mismatches = [];
for (const f of files) {
  if (SKIP.has(f.stem)) continue;
  const subs = new Map();
  for (const m of f.text.matchAll(/^\.\. \|([^|]+)\| replace:: (.*)$/gm)) subs.set(m[1], m[2].trim());
  const ctx = { subs, fnDefs: [], fnRefs: [], section: 0 };
  const rendered = f.secs.map((s, k) => {
    ctx.section = k;
    return { s, body: blocks(s.body, ctx) };
  });
  if (ctx.fnRefs.length !== ctx.fnDefs.length) {
    console.error(`warning: ${f.stem}: ${ctx.fnRefs.length} footnote references, ${ctx.fnDefs.length} footnotes`);
  }
  const notes = rendered.map(() => []);
  ctx.fnRefs.forEach((sec, n) => {
    const def = ctx.fnDefs[n];
    if (!def || !def.length) return;
    if (def[0].t === 'p') notes[sec].push({ t: 'p', text: `[${n + 1}] ${def[0].text}` }, ...def.slice(1));
    else notes[sec].push({ t: 'p', text: `[${n + 1}]` }, ...def);
  });
  const md = [];
  rendered.forEach(({ s, body }, k) => {
    if (s.level === 1) {
      md.push(f.kind === 'appendix' ? `# Appendix ${s.num}. ${s.plain}` : `# ${s.num}. ${s.plain}`);
    } else {
      md.push(`## ${s.num} ${s.plain}`);
      nSections++;
    }
    const text = renderBlocks([...body, ...notes[k]], s.level === 1);
    if (text) md.push(text);
  });
  const name = f.stem.replace(/[^A-Za-z0-9_-]/g, '-') + '.md';
  writeFileSync(join(outDir, name), md.join('\n\n') + '\n');
  nFiles++;

  if (htmlDir && existsSync(join(htmlDir, `${f.stem}.html`))) {
    const html = readFileSync(join(htmlDir, `${f.stem}.html`), 'utf8');
    const want = [...html.matchAll(/<h\d><span class="section-number">([\d.]+)\. <\/span>/g)].map((m) => m[1]);
    const got = f.secs.map((s) => (f.kind === 'appendix' ? s.num.replace(/^[A-Z]/, f.htmlPrefix) : s.num));
    if (want.join(' ') !== got.join(' ')) mismatches.push(f.stem);
  }
}
for (const u of unresolved) console.error(`warning: unresolved reference ${u}`);
if (htmlDir) {
  if (mismatches.length) console.error(`warning: numbering differs from the HTML in: ${mismatches.join(', ')}`);
}
console.log(`${nFiles} files, ${nSections} sections (## headings) in ${outDir}` +
  (htmlDir ? (mismatches.length ? '; numbering MISMATCHES the HTML' : '; numbering matches the HTML') : ''));
