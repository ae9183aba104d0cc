// The workspace caps hold inside the write, under workerd with local D1:
// concurrent uploads cannot pass a workspace's passage cap together, all
// workspaces together stay within their total, live workspaces within theirs,
// and a write for a workspace that is gone stores nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, d1, createWorkspace, uploadDocument } from './harness.mjs';

let worker;
before(async () => {
  worker = await startWorker({
    vars: { WORKSPACE_MAX_PASSAGES: '4', WORKSPACE_PASSAGES_TOTAL: '6', WORKSPACES_LIVE_MAX: '3', WORKSPACES_PER_CLIENT_PER_DAY: '20' },
  });
});
after(() => worker?.stop());

const create = () => createWorkspace(worker.url, '203.0.113.9');
/** A Markdown file of `sections` passages, one per section. */
const notes = (title, sections) => `# ${title}\n\n${Array.from({ length: sections }, (_, i) =>
  `## Part ${i + 1}\n\nThe ${title} item number ${i + 1} is kept on shelf ${i + 11} of the ${title} room.\n`).join('\n')}`;
const passagesOf = (id) => d1(worker.persist, `SELECT count(*) AS n FROM passages WHERE workspace = '${id}'`)[0].n;
const total = () => d1(worker.persist, 'SELECT passages FROM workspace_totals')[0].passages;

let first;
test('five concurrent uploads that each fill the cap: one is stored, the others refused, nothing past the cap', async () => {
  first = (await create()).body;
  const uploads = await Promise.all(['alder', 'birch', 'cedar', 'dogwood', 'elm'].map((name) =>
    uploadDocument(worker.url, first.id, first.secret, `${name}.md`, notes(name, 4))));
  assert.deepEqual(uploads.map((u) => u.status).sort(), [200, 422, 422, 422, 422]);
  for (const refused of uploads.filter((u) => u.status === 422)) assert.equal(refused.body.error.code, 'too_many_passages');
  assert.equal(passagesOf(first.id), 4);
  assert.equal(total(), 4, 'the total counts what is stored');
});

test('all workspaces together stay within WORKSPACE_PASSAGES_TOTAL: the write past it stores nothing', async () => {
  const second = (await create()).body;
  const over = await uploadDocument(worker.url, second.id, second.secret, 'fir.md', notes('fir', 3));
  assert.deepEqual([over.status, over.body.error.code], [503, 'workspace_capacity']);
  assert.equal(passagesOf(second.id), 0, 'rolled back whole');
  assert.equal((await uploadDocument(worker.url, second.id, second.secret, 'fir.md', notes('fir', 2))).status, 200);
  assert.equal(total(), 6);
  // Replacing a file with one of the same size needs no room: its passages are upserted.
  const replaced = await uploadDocument(worker.url, second.id, second.secret, 'fir.md', notes('fir', 2).replace('shelf 11', 'shelf 12'));
  assert.deepEqual([replaced.status, replaced.body.updated], [200, 1]);
});

test('live workspaces stay within WORKSPACES_LIVE_MAX; an expired one makes room', async () => {
  const third = await create();
  assert.equal(third.status, 201);
  const fourth = await create();
  assert.deepEqual([fourth.status, fourth.body.error.code], [503, 'workspace_capacity']);
  d1(worker.persist, `UPDATE workspaces SET expires_at = 1 WHERE id = '${third.body.id}'`);
  assert.equal((await create()).status, 201);
});

// What a racing write does whatever its snapshot said: the write itself is refused.
const refusedWith = (reason) => (e) => new RegExp(reason).test(`${e.stdout}${e.stderr}`);
const insert = (id, workspace) => `INSERT INTO passages (id, doc, section, text, hash, workspace) VALUES ('${id}', 'late', 's', 't', 'h', '${workspace}')`;

test('the database itself refuses a new passage past the cap, or for a workspace that is gone', () => {
  assert.throws(() => d1(worker.persist, insert(`${first.id}:late:1`, first.id)), refusedWith('workspace_full'));
  assert.equal(passagesOf(first.id), 4);
  assert.throws(() => d1(worker.persist, insert('gone:late:1', '00000000deadbeef')), refusedWith('workspace_gone'));
  assert.equal(passagesOf('00000000deadbeef'), 0);
});
