// The cron under workerd with real local D1: it settles reservations their
// request never settled, drops ledger days past SPEND_RETENTION_DAYS, and runs
// every step even when one of them fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, d1, eventually, runCron } from './harness.mjs';

let worker;
before(async () => {
  worker = await startWorker({ vars: { SPEND_RETENTION_DAYS: '90' } });
});
after(() => worker?.stop());

const cron = () => runCron(worker.url);
const MINUTE_MS = 60_000;
/** A request id issued at `ms` (its first 12 hex digits are the time). */
const issuedAt = (ms, tail) => ms.toString(16).padStart(12, '0') + tail.repeat(20);
const today = () => new Date().toISOString().slice(0, 10);
const ledgerRows = (day) => ({
  days: d1(worker.persist, `SELECT count(*) AS n FROM spend_days WHERE day = '${day}'`)[0].n,
  clients: d1(worker.persist, `SELECT count(*) AS n FROM spend_clients WHERE day = '${day}'`)[0].n,
  charges: d1(worker.persist, `SELECT count(*) AS n FROM spend_charges WHERE day = '${day}'`)[0].n,
});

/** A reservation as the ledger makes one: the day, the client's share and the charge. */
function reserve(day, requestId, amount, client = 'client-a') {
  d1(worker.persist, `
    INSERT INTO spend_days (day, reserved, requests) VALUES ('${day}', ${amount}, 1)
      ON CONFLICT (day) DO UPDATE SET reserved = reserved + ${amount}, requests = requests + 1;
    INSERT INTO spend_clients (day, client_key, reserved) VALUES ('${day}', '${client}', ${amount})
      ON CONFLICT (day, client_key) DO UPDATE SET reserved = reserved + ${amount};
    INSERT INTO spend_charges (request_id, day, reserved, client_key) VALUES ('${requestId}', '${day}', ${amount}, '${client}');`);
}

test('a reservation its request never settled is settled at its bound; one still in flight is not', async () => {
  const now = Date.now();
  const stuck = issuedAt(now - 10 * MINUTE_MS, 'a');
  const inFlight = issuedAt(now - 5_000, 'b');
  reserve(today(), stuck, 120);
  reserve(today(), inFlight, 30);

  assert.equal(await cron(), 200);

  const charges = d1(worker.persist, `SELECT request_id, charged, settled_at FROM spend_charges WHERE day = '${today()}' ORDER BY request_id`);
  const byId = Object.fromEntries(charges.map((c) => [c.request_id, c]));
  assert.equal(byId[stuck].charged, 120, 'charged its whole reservation: its usage is unknown');
  assert.ok(byId[stuck].settled_at > 0);
  assert.equal(byId[inFlight].settled_at, null, 'a request inside its deadline may still settle it');
  const [day] = d1(worker.persist, `SELECT reserved, spent FROM spend_days WHERE day = '${today()}'`);
  assert.deepEqual(day, { reserved: 30, spent: 120 });
  const [client] = d1(worker.persist, `SELECT reserved, spent FROM spend_clients WHERE day = '${today()}' AND client_key = 'client-a'`);
  assert.deepEqual(client, { reserved: 30, spent: 120 });

  assert.equal(await cron(), 200);
  const [again] = d1(worker.persist, `SELECT reserved, spent FROM spend_days WHERE day = '${today()}'`);
  assert.deepEqual(again, { reserved: 30, spent: 120 }, 'settled once, not again');
});

test('ledger days past the retention go, with their charges and client shares; recent ones stay', async () => {
  const old = new Date(Date.now() - 91 * 86_400_000).toISOString().slice(0, 10);
  const recent = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10);
  reserve(old, issuedAt(1, 'c'), 5);
  reserve(recent, issuedAt(2, 'd'), 7);

  assert.equal(await cron(), 200);

  assert.deepEqual(ledgerRows(old), { days: 0, clients: 0, charges: 0 });
  assert.deepEqual(ledgerRows(recent), { days: 1, clients: 1, charges: 1 });
  const [kept] = d1(worker.persist, `SELECT charged FROM spend_charges WHERE day = '${recent}'`);
  assert.equal(kept.charged, 7, 'a kept day\'s stuck reservation is settled too');
});

test('a step that fails does not stop the ones after it', async () => {
  // The review step fails on a missing table; the spend step runs after it.
  d1(worker.persist, 'DROP TABLE review_queue');
  const old = new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10);
  reserve(old, issuedAt(3, 'e'), 9);

  assert.equal(await cron(), 200);

  assert.deepEqual(ledgerRows(old), { days: 0, clients: 0, charges: 0 });
  await eventually(() => assert.match(worker.logs.join(''), /ReviewQueue failed/), 10_000);
});
