// A local receiver for the escalation webhook: it checks each request with the
// verifier the README shows (extracted from README.md, so the README stays
// true), records it, and can be told to fail the next attempts or to answer
// slowly.
import { createServer } from 'node:http';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './harness.mjs';

/** The README's `verify-escalation.mjs`, imported. */
export async function readmeVerifier() {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = readme.match(/```js\n(\/\/ verify-escalation\.mjs[\s\S]*?)```/);
  if (!block) throw new Error('README.md has no verify-escalation.mjs block');
  const file = join(mkdtempSync(join(tmpdir(), 'groundgate-verifier-')), 'verify-escalation.mjs');
  writeFileSync(file, block[1]);
  return (await import(pathToFileURL(file))).verifyEscalation;
}

export async function startReceiver(secret) {
  const verify = await readmeVerifier();
  const deliveries = [];
  let failing = 0;
  let delayMs = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      const status = failing > 0 ? 500 : 204;
      failing = Math.max(0, failing - 1);
      const delivery = {
        at: Date.now(),
        headers: req.headers,
        raw,
        body: JSON.parse(raw),
        verified: verify(secret, req.headers['groundgate-signature'] ?? '', raw),
        forged: verify(`${secret}x`, req.headers['groundgate-signature'] ?? '', raw),
        status,
      };
      deliveries.push(delivery);
      setTimeout(() => { res.writeHead(status); res.end(); }, delayMs);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    deliveries,
    /** The next `n` attempts answer 500. */
    fail(n) { failing = n; },
    /** Every answer waits `ms` first. */
    slow(ms) { delayMs = ms; },
    of(type) { return deliveries.filter((d) => d.headers['groundgate-event'] === type); },
    stop: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}
