// What the browser tests share: Debian's Chromium, launched as page.test.mjs
// launches it, and a page whose Turnstile script is a test double that hands
// out a token, with every console complaint collected.
import { chromium } from 'playwright-core';

export const TOKEN = 'XXXX.DUMMY.TOKEN.XXXX';
const TURNSTILE = 'https://challenges.cloudflare.com/';
const FAKE_TURNSTILE = `window.turnstile = (() => {
  let options = null;
  const issue = () => setTimeout(() => options && options.callback(${JSON.stringify(TOKEN)}), 10);
  return {
    render(el, opts) { options = opts; issue(); return 'w1'; },
    reset() { issue(); },
    getResponse() { return ${JSON.stringify(TOKEN)}; },
    remove() { options = null; },
  };
})();`;

export function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A fresh context (closed after test `t`) and a page on `url` + `path`;
 * `init` (a function) runs in the page before its own scripts. Returns { context, page, problems, requests }: `problems` the console's
 * errors and warnings and uncaught errors, `requests` every request sent. */
export async function openPage(browser, t, url, path = '/', { viewport = { width: 1200, height: 900 }, init, ...options } = {}) {
  const context = await browser.newContext({ viewport, ...options });
  if (init) await context.addInitScript(init);
  t.after(async () => {
    await context.unrouteAll({ behavior: 'ignoreErrors' });
    await context.close();
  });
  await context.route(`${TURNSTILE}**`, (route) => route.fulfill({ contentType: 'text/javascript', body: FAKE_TURNSTILE }));
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push({ text: m.text(), url: m.location().url });
  });
  page.on('pageerror', (e) => problems.push({ text: `uncaught: ${e.message}`, url: '' }));
  page.on('request', (r) => requests.push(r));
  await page.goto(`${url}${path}`);
  return { context, page, problems, requests };
}

/** Clicks the Ask button (or runs `act`) and waits until the page shows the result. */
export async function askOnPage(page, question, act = () => page.click('#ask')) {
  await page.fill('#question', question);
  await act();
  await page.waitForFunction(() => !document.getElementById('ask').disabled && document.querySelector('#outcome .outcome'));
  const meta = await page.textContent('#details .meta').catch(() => '');
  return {
    status: (await page.getAttribute('#outcome .outcome', 'class')).replace('outcome', '').trim(),
    requestId: (meta.match(/request ([0-9a-f]{32})/) || [])[1],
  };
}
