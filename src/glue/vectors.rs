//! Keeping Vectorize in step with an ingest (Workers AI engine): embed added and
//! updated passages in batches, check the index's dimensions, upsert vectors
//! keyed by passage id with their doc and section, delete removed ones. D1 stays
//! the source of truth for text; this runs before D1 is written, so a failure
//! here changes nothing.

use serde::{Deserialize, Serialize};

use super::models::WorkersAi;
use super::vectorize::VectorizeBinding;
use crate::corpus::chunk::Passage;
use crate::cost;
use crate::models::Usage;
use crate::api::error::ApiError;
use crate::corpus::ingest::IngestPlan;
use crate::corpus::paging::VECTOR_BATCH;
use crate::corpus::workspace;
use crate::models::Models;

/// Workers AI embeds at most 100 texts per call.
const EMBED_BATCH: usize = 100;

#[derive(Serialize)]
struct Vector<'a> {
    id: &'a str,
    values: Vec<f32>,
    metadata: Metadata<'a>,
}

#[derive(Serialize)]
struct Metadata<'a> {
    doc: &'a str,
    section: &'a str,
    /// `shared` or the workspace's token: what queries filter on.
    scope: &'a str,
}

/// `describe()`: Vectorize reports `dimensions` (or, older, `config.dimensions`)
/// and `vectorCount`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IndexInfo {
    dimensions: Option<usize>,
    config: Option<IndexConfig>,
    vector_count: Option<u64>,
}

/// The vectors the index holds, as Vectorize reports it (V2 applies writes
/// asynchronously, so it may lag); `None` when it does not say.
pub async fn count(index: &VectorizeBinding) -> Option<u64> {
    index.info::<IndexInfo>().await.ok()?.vector_count
}

#[derive(Deserialize)]
struct IndexConfig {
    dimensions: usize,
}

/// What is embedded of a passage: its heading and its text.
fn text(p: &Passage) -> String {
    format!("{}\n{}", p.section, p.text)
}

/// The texts an ingest plan embeds, for its spend bound.
pub fn texts(plan: &IngestPlan) -> Vec<String> {
    plan.added.iter().chain(&plan.updated).map(text).collect()
}

/// What a run of embedding calls cost, whether or not the run succeeded:
/// every call made is billed, so a caller records `neurons` first.
pub struct Billed {
    pub neurons: f64,
    pub outcome: Result<(), ApiError>,
}

/// Embeds and upserts the plan's new and changed passages (of the shared
/// corpus, or of `workspace`), deletes its removed ones.
pub async fn sync(models: &WorkersAi<'_>, plan: &IngestPlan, workspace: Option<&str>) -> Billed {
    let mut billed = upsert(models, plan, workspace).await;
    if billed.outcome.is_ok() {
        billed.outcome = remove(&models.index, &plan.removed).await;
    }
    billed
}

fn unavailable(what: &str, e: String) -> ApiError {
    ApiError::Dependency(format!("{what}: {e}"))
}

/// Deletes these passages' vectors, [`VECTOR_BATCH`] ids per call.
pub async fn remove(index: &VectorizeBinding, ids: &[String]) -> Result<(), ApiError> {
    for batch in ids.chunks(VECTOR_BATCH) {
        index.remove(batch).await.map_err(|e| unavailable("Vectorize delete", e.0))?;
    }
    Ok(())
}

/// Embeds and upserts the plan's new and changed passages. A page of a
/// paged ingest runs only this: its removals wait for the commit.
pub async fn upsert(models: &WorkersAi<'_>, plan: &IngestPlan, workspace: Option<&str>) -> Billed {
    let mut neurons = 0.0;
    let outcome = upsert_counting(models, plan, workspace, &mut neurons).await;
    Billed { neurons, outcome }
}

/// [`upsert`], adding each embedding call's neurons to `neurons` as it returns.
async fn upsert_counting(models: &WorkersAi<'_>, plan: &IngestPlan, workspace: Option<&str>, neurons: &mut f64) -> Result<(), ApiError> {
    let scope = workspace::token(workspace);
    let info: IndexInfo = models.index.info().await.map_err(|e| unavailable("Vectorize describe", e.0))?;
    let dimensions = info.dimensions.or(info.config.map(|c| c.dimensions));
    let expected = models.config.embedding_dimensions;
    if dimensions.is_some_and(|d| d != expected) {
        return Err(ApiError::Misconfigured(format!(
            "the Vectorize index has {} dimensions but EMBEDDING_DIMENSIONS ({}) is {expected}",
            dimensions.unwrap_or_default(),
            models.config.embedding_model
        )));
    }
    let changed: Vec<&Passage> = plan.added.iter().chain(&plan.updated).collect();
    let mut pending: Vec<Vector> = Vec::new();
    for batch in changed.chunks(EMBED_BATCH) {
        let texts: Vec<String> = batch.iter().map(|p| text(p)).collect();
        let embedded = models.embed(&texts).await.map_err(|e| unavailable("embedding", e.to_string()))?;
        let bound = texts.iter().map(|t| cost::embed_bound(t)).fold(Usage::default(), |a, b| Usage { input_tokens: a.input_tokens + b.input_tokens, output_tokens: 0 });
        *neurons += cost::neurons(cost::price(models.config, &models.config.embedding_model), embedded.usage.or_bound(bound));
        if let Some(v) = embedded.vectors.iter().find(|v| v.len() != expected) {
            return Err(ApiError::Misconfigured(format!(
                "{} returned {} dimensions; EMBEDDING_DIMENSIONS is {expected}",
                models.config.embedding_model,
                v.len()
            )));
        }
        pending.extend(
            batch.iter().zip(embedded.vectors).map(|(p, values)| Vector { id: &p.id, values, metadata: Metadata { doc: &p.doc, section: &p.section, scope: &scope } }),
        );
        if pending.len() + EMBED_BATCH > VECTOR_BATCH {
            models.index.put(&pending).await.map_err(|e| unavailable("Vectorize upsert", e.0))?;
            pending.clear();
        }
    }
    if !pending.is_empty() {
        models.index.put(&pending).await.map_err(|e| unavailable("Vectorize upsert", e.0))?;
    }
    Ok(())
}
