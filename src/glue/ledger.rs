//! [`SpendLedger`] over D1. A reservation is one batch (one transaction): a
//! conditional update that succeeds only if the day's reserved + spent + the
//! request's bound stays within the cap and, for a client, its reserved +
//! spent + the bound within its share; the charge row is written only if it
//! did. Settling moves a request's reservation to its charge, once, keyed by
//! request id, for the day and for its client.

use serde::Deserialize;
use worker::wasm_bindgen::JsValue;
use worker::D1Database;

use super::d1::dependency;
use super::vectors::Billed;
use crate::api::error::ApiError;
use crate::guards::spend::Ledger;
use crate::ports::{Reservation, Reserved, SpendLedger};

#[derive(Deserialize)]
struct Fits {
    fits: u8,
}

pub struct D1Ledger {
    pub db: D1Database,
}

/// A client key, or SQL NULL for the admin token.
fn client(client: Option<&str>) -> JsValue {
    client.map_or(JsValue::NULL, JsValue::from)
}

impl SpendLedger for D1Ledger {
    async fn reserve(&self, r: &Reservation<'_>) -> Result<Reserved, ApiError> {
        let bind = |sql: &str, args: &[JsValue]| self.db.prepare(sql).bind(args).map_err(dependency("bind reserve"));
        let (day, amount, id) = (JsValue::from(r.day), JsValue::from(r.amount), JsValue::from(r.request_id));
        let statements = vec![
            bind("INSERT OR IGNORE INTO spend_days (day) VALUES (?1)", std::slice::from_ref(&day))?,
            bind(
                "UPDATE spend_days SET reserved = reserved + ?2, requests = requests + 1 \
                 WHERE day = ?1 AND reserved + spent + ?2 <= ?3 \
                 AND (?4 IS NULL OR coalesce((SELECT reserved + spent FROM spend_clients WHERE day = ?1 AND client_key = ?4), 0) + ?2 <= ?5)",
                &[day.clone(), amount.clone(), r.cap.into(), client(r.client), r.client_cap.into()],
            )?,
            bind(
                "INSERT INTO spend_charges (request_id, day, reserved, client_key) SELECT ?1, ?2, ?3, ?4 WHERE changes() = 1",
                &[id.clone(), day.clone(), amount.clone(), client(r.client)],
            )?,
            bind(
                "INSERT INTO spend_clients (day, client_key, reserved) SELECT ?1, ?2, ?3 \
                 WHERE ?2 IS NOT NULL AND EXISTS (SELECT 1 FROM spend_charges WHERE request_id = ?4 AND settled_at IS NULL) \
                 ON CONFLICT (day, client_key) DO UPDATE SET reserved = reserved + excluded.reserved",
                &[day.clone(), client(r.client), amount.clone(), id],
            )?,
            // Read only when nothing was reserved: which limit it would pass.
            bind("SELECT reserved + spent + ?2 <= ?3 AS fits FROM spend_days WHERE day = ?1", &[day, amount, r.cap.into()])?,
        ];
        let results = self.db.batch(statements).await.map_err(dependency("reserve"))?;
        let written = results.get(2).and_then(|r| r.meta().ok().flatten()).and_then(|m| m.changes).unwrap_or(0);
        if written == 1 {
            return Ok(Reserved::Yes);
        }
        let day_fits: Vec<Fits> = results.get(4).map(|r| r.results()).transpose().map_err(dependency("decode reserve"))?.unwrap_or_default();
        Ok(match day_fits.first() {
            Some(Fits { fits: 1 }) => Reserved::OverShare,
            _ => Reserved::OverCap,
        })
    }

    async fn settle(&self, request_id: &str, charged: f64, now: u64) -> Result<(), ApiError> {
        let bind = |sql: &str, args: &[JsValue]| self.db.prepare(sql).bind(args).map_err(dependency("bind settle"));
        let open = "FROM spend_charges WHERE request_id = ?1 AND settled_at IS NULL";
        let statements = vec![
            bind(
                &format!(
                    "UPDATE spend_days SET reserved = reserved - (SELECT reserved {open}), spent = spent + ?2 \
                     WHERE day = (SELECT day {open})"
                ),
                &[request_id.into(), charged.into()],
            )?,
            bind(
                &format!(
                    "UPDATE spend_clients SET reserved = reserved - (SELECT reserved {open}), spent = spent + ?2 \
                     WHERE day = (SELECT day {open}) AND client_key = (SELECT client_key {open})"
                ),
                &[request_id.into(), charged.into()],
            )?,
            bind(
                "UPDATE spend_charges SET charged = ?2, settled_at = ?3 WHERE request_id = ?1 AND settled_at IS NULL",
                &[request_id.into(), charged.into(), JsValue::from(now as f64)],
            )?,
        ];
        self.db.batch(statements).await.map_err(dependency("settle"))?;
        Ok(())
    }

    async fn record(&self, day: &str, line: &str, charged: f64, now: u64) -> Result<(), ApiError> {
        let bind = |sql: &str, args: &[JsValue]| self.db.prepare(sql).bind(args).map_err(dependency("bind record"));
        let statements = vec![
            bind("INSERT OR IGNORE INTO spend_days (day) VALUES (?1)", &[day.into()])?,
            bind("UPDATE spend_days SET spent = spent + ?2 WHERE day = ?1", &[day.into(), charged.into()])?,
            bind(
                "INSERT INTO spend_charges (request_id, day, reserved, charged, settled_at, kind) VALUES (?1, ?2, 0, ?3, ?4, 'ingest')",
                &[line.into(), day.into(), charged.into(), JsValue::from(now as f64)],
            )?,
        ];
        self.db.batch(statements).await.map_err(dependency("record"))?;
        Ok(())
    }
}

#[derive(Deserialize)]
struct OpenCharge {
    reserved: f64,
}

#[derive(Deserialize)]
struct DayRow {
    reserved: f64,
    spent: f64,
    requests: u32,
    ingest: Option<f64>,
}

impl D1Ledger {
    /// Settles a reservation whose request never settled (its worker died, or D1
    /// failed twice), charging the whole reservation since its usage is unknown.
    /// `Ok(false)` if the request has no open reservation (never made, or settled).
    pub async fn release(&self, request_id: &str, now: u64) -> Result<bool, ApiError> {
        let open: Option<OpenCharge> = self
            .db
            .prepare("SELECT reserved FROM spend_charges WHERE request_id = ?1 AND settled_at IS NULL")
            .bind(&[request_id.into()])
            .map_err(dependency("bind release"))?
            .first(None)
            .await
            .map_err(dependency("release"))?;
        let Some(open) = open else { return Ok(false) };
        self.settle(request_id, open.reserved, now).await?;
        Ok(true)
    }

    /// Records what a run of embedding calls cost as the ledger line `line`,
    /// whether or not the run succeeded, then gives its outcome: the neurons,
    /// or why it failed.
    pub async fn record_billed(&self, line: &str, billed: Billed, now: u64) -> Result<f64, ApiError> {
        if billed.neurons > 0.0 {
            self.record(&crate::guards::spend::utc_day(now), line, billed.neurons, now).await?;
        }
        billed.outcome.map(|()| billed.neurons)
    }

    /// Settles, at their whole reservation, the open reservations of requests
    /// issued before the id `before` (an id begins with its issue time): no
    /// request settles that late. One batch, so the days, the clients' shares
    /// and the charges move together.
    pub async fn settle_stale(&self, before: &str, now: u64) -> Result<(), ApiError> {
        let stale = "c.settled_at IS NULL AND c.kind = 'request' AND c.request_id < ?1";
        let total = |of: &str| format!("(SELECT sum(c.reserved) FROM spend_charges c WHERE {of} AND {stale})");
        let days = total("c.day = spend_days.day");
        let clients = total("c.day = spend_clients.day AND c.client_key = spend_clients.client_key");
        let (before, now) = (JsValue::from(before), JsValue::from(now as f64));
        let statements = [
            (
                format!(
                    "UPDATE spend_days SET reserved = reserved - {days}, spent = spent + {days} \
                     WHERE day IN (SELECT c.day FROM spend_charges c WHERE {stale})"
                ),
                vec![before.clone()],
            ),
            (
                format!(
                    "UPDATE spend_clients SET reserved = reserved - {clients}, spent = spent + {clients} \
                     WHERE (day, client_key) IN (SELECT c.day, c.client_key FROM spend_charges c WHERE {stale})"
                ),
                vec![before.clone()],
            ),
            (format!("UPDATE spend_charges AS c SET charged = c.reserved, settled_at = ?2 WHERE {stale}"), vec![before, now]),
        ]
        .iter()
        .map(|(sql, args)| self.db.prepare(sql).bind(args).map_err(dependency("bind settle stale")))
        .collect::<Result<Vec<_>, _>>()?;
        self.db.batch(statements).await.map_err(dependency("settle stale"))?;
        Ok(())
    }

    /// Drops the ledger's rows of UTC days before `before_day`.
    pub async fn prune(&self, before_day: &str) -> Result<(), ApiError> {
        let statements = ["spend_charges", "spend_clients", "spend_days"]
            .iter()
            .map(|table| {
                let sql = format!("DELETE FROM {table} WHERE day < ?1");
                self.db.prepare(&sql).bind(&[before_day.into()]).map_err(dependency("bind prune spend"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.db.batch(statements).await.map_err(dependency("prune spend"))?;
        Ok(())
    }

    /// The day's ledger.
    pub async fn ledger(&self, day: &str, cap: f64, client_share: f64, request_bound: f64) -> Result<Ledger, ApiError> {
        let row: Option<DayRow> = self
            .db
            .prepare(
                "SELECT reserved, spent, requests, \
                 (SELECT sum(charged) FROM spend_charges WHERE day = ?1 AND kind = 'ingest') AS ingest \
                 FROM spend_days WHERE day = ?1",
            )
            .bind(&[day.into()])
            .map_err(dependency("bind ledger"))?
            .first(None)
            .await
            .map_err(dependency("ledger"))?;
        let row = row.unwrap_or(DayRow { reserved: 0.0, spent: 0.0, requests: 0, ingest: None });
        Ok(Ledger {
            day: day.to_string(),
            cap_neurons: cap,
            cap_usd: crate::cost::usd(cap),
            client_cap_neurons: cap * client_share,
            reserved_neurons: row.reserved,
            spent_neurons: row.spent,
            spent_usd: crate::cost::usd(row.spent),
            ingest_neurons: row.ingest.unwrap_or(0.0),
            requests: row.requests,
            request_bound_neurons: request_bound,
        })
    }
}
