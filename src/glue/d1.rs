//! D1: the passage store behind [`Corpus`], and the ingest writer. Every failure
//! becomes [`ApiError::Dependency`] with the D1 message for the log only.

use serde::Deserialize;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, D1PreparedStatement, Env};

use crate::corpus::chunk::Passage;
use crate::api::error::ApiError;
use crate::corpus::ingest::{IngestPlan, StoredPassage};
use crate::stages::pipeline::{Corpus, Lookup, StoredHit};
use crate::corpus::vocabulary::Vocabulary;

/// The `DB` binding.
pub struct D1Corpus {
    db: D1Database,
}

/// A D1 failure as an `ApiError::Dependency`: the message, with what was being
/// done, is for the log only.
pub(super) fn dependency(context: &str) -> impl Fn(worker::Error) -> ApiError + '_ {
    move |e| ApiError::Dependency(format!("D1 {context}: {e}"))
}

/// The `DB` binding; its absence is a configuration error.
pub(super) fn database(env: &Env) -> Result<D1Database, ApiError> {
    env.d1("DB").map_err(|_| ApiError::Misconfigured("the D1 binding DB is missing".into()))
}

#[derive(Deserialize)]
struct Count {
    n: u32,
}

#[derive(Deserialize)]
struct Value {
    value: String,
}

impl D1Corpus {
    pub fn new(env: &Env) -> Result<Self, ApiError> {
        Ok(D1Corpus { db: database(env)? })
    }

    fn statement(&self, sql: &str, args: &[JsValue]) -> Result<D1PreparedStatement, ApiError> {
        self.db.prepare(sql).bind(args).map_err(dependency("bind"))
    }

    /// Every stored passage's id, document and hash.
    pub async fn stored(&self) -> Result<Vec<StoredPassage>, ApiError> {
        let result = self.db.prepare("SELECT id, doc, hash FROM passages ORDER BY id").all().await.map_err(dependency("read passages"))?;
        result.results().map_err(dependency("decode passages"))
    }

    /// The passage count.
    pub async fn passage_count(&self) -> Result<u32, ApiError> {
        let row: Option<Count> = self.db.prepare("SELECT count(*) AS n FROM passages").first(None).await.map_err(dependency("count"))?;
        Ok(row.map_or(0, |r| r.n))
    }

    /// Applies an ingest plan and records the new version, in one transaction.
    pub async fn apply(&self, plan: &IngestPlan) -> Result<(), ApiError> {
        let mut batch = Vec::new();
        for passage in &plan.added {
            batch.push(self.statement(
                "INSERT INTO passages (id, doc, section, text, hash) VALUES (?1, ?2, ?3, ?4, ?5)",
                &passage_args(passage),
            )?);
        }
        for passage in &plan.updated {
            batch.push(self.statement(
                "UPDATE passages SET doc = ?2, section = ?3, text = ?4, hash = ?5 WHERE id = ?1",
                &passage_args(passage),
            )?);
            batch.push(self.statement("DELETE FROM passages_fts WHERE id = ?1", &[passage.id.as_str().into()])?);
        }
        for passage in plan.added.iter().chain(&plan.updated) {
            batch.push(self.statement(
                "INSERT INTO passages_fts (id, terms) VALUES (?1, ?2)",
                &[passage.id.as_str().into(), passage.index_terms().into()],
            )?);
        }
        for id in &plan.removed {
            batch.push(self.statement("DELETE FROM passages WHERE id = ?1", &[id.as_str().into()])?);
            batch.push(self.statement("DELETE FROM passages_fts WHERE id = ?1", &[id.as_str().into()])?);
        }
        for (key, value) in [("vocabulary", plan.vocabulary.canonical()), ("corpus_version", plan.version.clone())] {
            batch.push(self.statement(
                "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[key.into(), value.into()],
            )?);
        }
        self.db.batch(batch).await.map_err(dependency("apply ingest"))?;
        Ok(())
    }
}

fn passage_args(p: &Passage) -> [JsValue; 5] {
    [p.id.as_str().into(), p.doc.as_str().into(), p.section.as_str().into(), p.text.as_str().into(), p.content_hash().into()]
}

impl Corpus for D1Corpus {
    async fn version(&self) -> Result<String, ApiError> {
        let row: Option<Value> = self
            .db
            .prepare("SELECT value FROM meta WHERE key = 'corpus_version'")
            .first(None)
            .await
            .map_err(dependency("read version"))?;
        Ok(row.map_or_else(|| "empty".to_string(), |r| r.value))
    }

    async fn vocabulary(&self) -> Result<Vocabulary, ApiError> {
        let row: Option<Value> = self
            .db
            .prepare("SELECT value FROM meta WHERE key = 'vocabulary'")
            .first(None)
            .await
            .map_err(dependency("read vocabulary"))?;
        // Only a vocabulary that passed ingest's checks is ever stored.
        Ok(row.and_then(|r| serde_json::from_str(&r.value).ok()).unwrap_or_default())
    }

    async fn passages(&self, ids: &[String]) -> Result<Vec<StoredHit>, ApiError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let placeholders = (1..=ids.len()).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ");
        let args: Vec<JsValue> = ids.iter().map(|id| id.as_str().into()).collect();
        let rows: Vec<HitRow> = self
            .statement(&format!("SELECT id, doc, section, text FROM passages WHERE id IN ({placeholders})"), &args)?
            .all()
            .await
            .map_err(dependency("read passages"))?
            .results()
            .map_err(dependency("decode passages"))?;
        Ok(rows.into_iter().map(HitRow::into_hit).collect())
    }

    async fn lookup(&self, terms: &[String], expression: &str, k: usize) -> Result<Lookup, ApiError> {
        let mut batch = vec![self.statement("SELECT count(*) AS n FROM passages", &[])?];
        for term in terms {
            batch.push(self.statement(
                "SELECT count(*) AS n FROM passages_fts WHERE passages_fts MATCH ?1",
                &[format!("\"{term}\"").into()],
            )?);
        }
        batch.push(self.statement(
            "SELECT p.id, p.doc, p.section, p.text FROM passages_fts \
             JOIN passages p ON p.id = passages_fts.id \
             WHERE passages_fts MATCH ?1 ORDER BY bm25(passages_fts), p.id LIMIT ?2",
            &[expression.into(), JsValue::from(k as u32)],
        )?);
        let results = self.db.batch(batch).await.map_err(dependency("lookup"))?;
        let result = |i: usize| results.get(i).ok_or_else(|| ApiError::Dependency(format!("D1 lookup: no result {i}")));
        let count = |i: usize| -> Result<u32, ApiError> {
            let rows: Vec<Count> = result(i)?.results().map_err(dependency("decode count"))?;
            Ok(rows.first().map_or(0, |r| r.n))
        };
        let doc_freqs = (1..=terms.len()).map(count).collect::<Result<Vec<_>, _>>()?;
        let hits: Vec<HitRow> = result(terms.len() + 1)?.results().map_err(dependency("decode hits"))?;
        Ok(Lookup {
            total_passages: count(0)?,
            doc_freqs,
            hits: hits.into_iter().map(HitRow::into_hit).collect(),
        })
    }
}

#[derive(Deserialize)]
struct HitRow {
    id: String,
    doc: String,
    section: String,
    text: String,
}

impl HitRow {
    fn into_hit(self) -> StoredHit {
        StoredHit { id: self.id, doc: self.doc, section: self.section, text: self.text }
    }
}
