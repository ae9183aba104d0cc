// A local stand-in for Turnstile's siteverify that behaves like the documented
// service: the test secrets (1x…AA always passes, 2x…AA always fails, 3x…AA
// answers timeout-or-duplicate), single use of tokens (a second use of a token is
// timeout-or-duplicate, unless it repeats the same idempotency_key), and two
// fault tokens for the worker's failure paths: `internal-error-once` (an
// internal-error, then success for the same idempotency key) and `hang` (never
// answers).
import { createServer } from 'node:http';

export const SECRETS = {
  pass: '1x0000000000000000000000000000000AA',
  fail: '2x0000000000000000000000000000000AA',
  spent: '3x0000000000000000000000000000000AA',
};

export async function startFakeSiteverify() {
  const calls = [];
  const used = new Map(); // token -> idempotency key of its first successful use
  const hung = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => { raw += c; });
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(raw));
      calls.push({ contentType: req.headers['content-type'], ...form });
      if (form.response === 'hang') { hung.push(res); return; }
      const answer = (body) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ action: 'ask', hostname: 'groundgate.test', ...body }));
      };
      if (!form.response) return answer({ success: false, 'error-codes': ['missing-input-response'] });
      if (form.secret === SECRETS.fail) return answer({ success: false, 'error-codes': ['invalid-input-response'] });
      if (form.secret === SECRETS.spent) return answer({ success: false, 'error-codes': ['timeout-or-duplicate'] });
      if (form.secret !== SECRETS.pass) return answer({ success: false, 'error-codes': ['invalid-input-secret'] });
      if (form.response === 'internal-error-once' && calls.filter((c) => c.idempotency_key === form.idempotency_key).length === 1) {
        return answer({ success: false, 'error-codes': ['internal-error'] });
      }
      const firstKey = used.get(form.response);
      if (firstKey !== undefined && firstKey !== form.idempotency_key) {
        return answer({ success: false, 'error-codes': ['timeout-or-duplicate'] });
      }
      used.set(form.response, form.idempotency_key);
      return answer({ success: true, 'error-codes': [] });
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/siteverify`;
  const stop = () => new Promise((r) => { hung.forEach((res) => res.destroy()); server.close(r); });
  return { url, calls, stop };
}
