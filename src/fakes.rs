//! In-memory fakes of every port, for native tests and benchmarks. Each
//! behaves as the binding it stands in for is documented to (the ledger's
//! reservation is conditional and atomic, settling is idempotent, the audit log
//! appends), can be told to fail, and writes what it was asked into one shared
//! event log, so a test can check the order of everything that happened.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::rc::Rc;

use serde_json::Value;

use crate::api::error::ApiError;
use crate::api::response::{AskResponse, Tier};
use crate::corpus::memory::MemoryCorpus;
use crate::corpus::workspace::{Scope, WorkspaceState};
use crate::cost;
use crate::models::Usage;
use crate::guards::audit::Record;
use crate::guards::rate_limit::Window;
use crate::models::{Embeddings, Message, ModelError, Models, Reply, Reported, Role};
use crate::escalation::Escalation;
use crate::ports::{
    Alarms, AnswerCache, AuditLog, Cached, Clock, Corpus, CorpusState, Notifier, Ports, RateLimiter, Reservation, Reserved, ReviewQueue,
    SpendLedger, Verifier,
};
use crate::corpus::ingest::{Digest, IngestPlan, StoredPassage};
use crate::corpus::paging::StoredText;
use crate::ingesting::{Applied, Commit, CommitBasis, Opened, PageBasis, Staging};
use crate::corpus::vocabulary::Vocabulary;
use crate::api::response::Origin;
use crate::review::{Closing, Desk, Enqueued, OpenItem, Queued};
use crate::ports::{Lookup, Query, StoredHit};

/// One thing a fake was asked to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Verify,
    Count,
    CacheGet,
    CachePut,
    Reserve { request_id: String, amount: f64, granted: bool },
    Settle { request_id: String, charged: f64 },
    SettleFailed { request_id: String },
    Model,
    Append,
    Reject { code: String },
    /// Escalations sent to the webhook.
    Send { sent: usize },
}

/// The event log every fake of one [`FakePorts`] writes to.
pub type Events = Rc<RefCell<Vec<Event>>>;

fn failure(what: &str) -> ApiError {
    ApiError::Dependency(format!("fake {what} told to fail"))
}

/// Siteverify: the tokens it accepts.
pub struct FakeVerifier {
    events: Events,
    pub valid: Vec<String>,
}

impl Verifier for FakeVerifier {
    async fn verify(&self, token: &str, _: Option<&str>) -> Result<(), ApiError> {
        self.events.borrow_mut().push(Event::Verify);
        if self.valid.iter().any(|t| t == token) {
            Ok(())
        } else {
            Err(ApiError::TurnstileFailed(vec!["invalid-input-response".into()]))
        }
    }
}

/// The rate-limit counter.
pub struct FakeLimiter {
    events: Events,
    counts: RefCell<HashMap<(String, u64), u32>>,
    pub fail: Cell<bool>,
}

impl RateLimiter for FakeLimiter {
    async fn count(&self, client: &str, window: Window) -> Result<u32, ApiError> {
        self.events.borrow_mut().push(Event::Count);
        if self.fail.get() {
            return Err(failure("rate limiter"));
        }
        let mut counts = self.counts.borrow_mut();
        let count = counts.entry((client.to_string(), window.start)).or_default();
        *count += 1;
        Ok(*count)
    }
}

/// The answer cache (one tier).
pub struct FakeCache {
    events: Events,
    pub stored: RefCell<HashMap<String, Cached>>,
}

impl AnswerCache for FakeCache {
    async fn get(&self, key: &str, _: u64) -> Option<(AskResponse, Tier)> {
        self.events.borrow_mut().push(Event::CacheGet);
        self.stored.borrow().get(key).map(|entry| (entry.answer.clone(), Tier::D1))
    }

    async fn put(&self, entry: &Cached, _: u64) {
        self.events.borrow_mut().push(Event::CachePut);
        self.stored.borrow_mut().insert(entry.key.clone(), entry.clone());
    }
}

/// One request's line of the ledger.
#[derive(Debug, Clone, PartialEq)]
pub struct Charge {
    pub day: String,
    pub client: Option<String>,
    pub reserved: f64,
    pub charged: Option<f64>,
}

/// The spend ledger, with the D1 ledger's semantics.
pub struct FakeLedger {
    events: Events,
    /// Per day: (reserved, spent).
    pub days: RefCell<HashMap<String, (f64, f64)>>,
    /// Per day and client: (reserved, spent).
    pub clients: RefCell<HashMap<(String, String), (f64, f64)>>,
    pub charges: RefCell<HashMap<String, Charge>>,
    pub fail_reserve: Cell<bool>,
    /// Settles that fail before one succeeds.
    pub failing_settles: Cell<u32>,
}

impl SpendLedger for FakeLedger {
    async fn reserve(&self, r: &Reservation<'_>) -> Result<Reserved, ApiError> {
        if self.fail_reserve.get() {
            return Err(failure("ledger"));
        }
        let mut days = self.days.borrow_mut();
        let mut clients = self.clients.borrow_mut();
        let day = days.entry(r.day.to_string()).or_default();
        let client_fits = r.client.is_none_or(|c| {
            let (reserved, spent) = clients.get(&(r.day.to_string(), c.to_string())).copied().unwrap_or_default();
            reserved + spent + r.amount <= r.client_cap
        });
        let day_fits = day.0 + day.1 + r.amount <= r.cap;
        let granted = day_fits && client_fits && !self.charges.borrow().contains_key(r.request_id);
        if granted {
            day.0 += r.amount;
            if let Some(c) = r.client {
                clients.entry((r.day.to_string(), c.to_string())).or_default().0 += r.amount;
            }
            let charge = Charge { day: r.day.to_string(), client: r.client.map(String::from), reserved: r.amount, charged: None };
            self.charges.borrow_mut().insert(r.request_id.to_string(), charge);
        }
        self.events.borrow_mut().push(Event::Reserve { request_id: r.request_id.to_string(), amount: r.amount, granted });
        Ok(match (granted, day_fits) {
            (true, _) => Reserved::Yes,
            (false, false) => Reserved::OverCap,
            (false, true) => Reserved::OverShare,
        })
    }

    async fn settle(&self, request_id: &str, charged: f64, _: u64) -> Result<(), ApiError> {
        if self.failing_settles.get() > 0 {
            self.failing_settles.set(self.failing_settles.get() - 1);
            self.events.borrow_mut().push(Event::SettleFailed { request_id: request_id.to_string() });
            return Err(failure("ledger"));
        }
        let mut charges = self.charges.borrow_mut();
        let Some(charge) = charges.get_mut(request_id).filter(|c| c.charged.is_none()) else { return Ok(()) };
        charge.charged = Some(charged);
        let mut days = self.days.borrow_mut();
        let day = days.entry(charge.day.clone()).or_default();
        *day = (day.0 - charge.reserved, day.1 + charged);
        if let Some(c) = &charge.client {
            let mut clients = self.clients.borrow_mut();
            let line = clients.entry((charge.day.clone(), c.clone())).or_default();
            *line = (line.0 - charge.reserved, line.1 + charged);
        }
        self.events.borrow_mut().push(Event::Settle { request_id: request_id.to_string(), charged });
        Ok(())
    }

    async fn record(&self, day: &str, line: &str, charged: f64, _: u64) -> Result<(), ApiError> {
        self.days.borrow_mut().entry(day.to_string()).or_default().1 += charged;
        let charge = Charge { day: day.to_string(), client: None, reserved: 0.0, charged: Some(charged) };
        self.charges.borrow_mut().insert(line.to_string(), charge);
        Ok(())
    }
}

/// The review inbox: each question key with its item and count.
#[derive(Default)]
pub struct FakeReview {
    pub items: RefCell<Vec<(Queued, u32)>>,
}

impl ReviewQueue for FakeReview {
    async fn enqueue(&self, item: &Queued, _now: u64) -> Result<Enqueued, ApiError> {
        let mut items = self.items.borrow_mut();
        let index = match items.iter().position(|(q, _)| q.question_key == item.question_key) {
            Some(index) => index,
            None => {
                items.push((item.clone(), 0));
                items.len() - 1
            }
        };
        items[index].1 += 1;
        Ok(Enqueued { item: index as u64 + 1, count: items[index].1, open: true })
    }
}

/// The operator's desk: the open items, the live workspaces, the shared
/// corpus's operator passages and version; every call, in order, in `calls`.
#[derive(Default)]
pub struct FakeDesk {
    pub items: RefCell<HashMap<u64, OpenItem>>,
    pub live: Vec<String>,
    pub stored: RefCell<Vec<StoredPassage>>,
    pub version: RefCell<String>,
    pub fail_write: Cell<bool>,
    pub calls: RefCell<Vec<String>>,
}

impl FakeDesk {
    fn call(&self, call: String) {
        self.calls.borrow_mut().push(call);
    }
}

fn scope_name(workspace: Option<&str>) -> &str {
    workspace.unwrap_or("shared")
}

impl Desk for FakeDesk {
    async fn open_item(&self, id: u64) -> Result<OpenItem, ApiError> {
        self.call(format!("open {id}"));
        self.items.borrow().get(&id).cloned().ok_or(ApiError::NotFound)
    }

    async fn workspace_live(&self, id: &str) -> Result<bool, ApiError> {
        self.call(format!("live {id}"));
        Ok(self.live.iter().any(|w| w == id))
    }

    async fn shared_state(&self) -> Result<(String, Vocabulary), ApiError> {
        self.call("shared".into());
        Ok((self.version.borrow().clone(), Vocabulary::default()))
    }

    async fn stored(&self, workspace: Option<&str>) -> Result<Vec<StoredPassage>, ApiError> {
        self.call(format!("stored {}", scope_name(workspace)));
        Ok(if workspace.is_none() { self.stored.borrow().clone() } else { Vec::new() })
    }

    async fn embed(&self, plan: &IngestPlan, _: Option<&str>, line: &str) -> Result<f64, ApiError> {
        self.call(format!("embed {line} {}", plan.added.len() + plan.updated.len()));
        Ok(1.5)
    }

    async fn write(&self, plan: &IngestPlan, workspace: Option<&str>) -> Result<String, ApiError> {
        self.call(format!("write {}", scope_name(workspace)));
        if self.fail_write.get() {
            return Err(failure("corpus write"));
        }
        if workspace.is_none() {
            let mut stored = self.stored.borrow_mut();
            stored.retain(|s| !plan.removed.contains(&s.id));
            for p in plan.added.iter().chain(&plan.updated) {
                stored.retain(|s| s.id != p.id);
                stored.push(StoredPassage { id: p.id.clone(), doc: p.doc.clone(), hash: p.content_hash(), origin: Origin::Operator });
            }
            *self.version.borrow_mut() = plan.version.clone();
        }
        Ok(plan.version.clone())
    }

    async fn forget_answer(&self, key: &str) -> Result<(), ApiError> {
        self.call(format!("forget {key}"));
        Ok(())
    }

    async fn close(&self, id: u64, closing: &Closing) -> Result<(), ApiError> {
        self.call(format!("close {id} {closing:?}"));
        self.items.borrow_mut().remove(&id);
        Ok(())
    }

    async fn record(&self, event: &str, _: u64) -> Result<(), ApiError> {
        self.call(format!("record {event}"));
        Ok(())
    }
}

/// An ingest's staged pages: each page's documents and plan.
type StagedPages = BTreeMap<u32, (BTreeSet<String>, IngestPlan)>;

/// A paged ingest's stores: the shared corpus (passages with their text,
/// version, vocabulary, digest) and the ingests with their staged pages.
#[derive(Default)]
pub struct FakeStaging {
    pub passages: RefCell<BTreeMap<String, (StoredPassage, StoredText)>>,
    pub version: RefCell<Option<String>>,
    pub vocabulary: RefCell<Option<String>>,
    pub digest: RefCell<Option<Digest>>,
    pub ingests: RefCell<BTreeMap<String, (Opened, StagedPages)>>,
    /// Passages embedded so far.
    pub embedded: Cell<usize>,
    /// Another commit slips in between the check and the transaction.
    pub race: Cell<bool>,
    pub forgotten: RefCell<Vec<String>>,
}

impl Staging for FakeStaging {
    async fn state(&self) -> Result<CorpusState, ApiError> {
        let version = self.version.borrow().clone();
        let vocabulary = self.vocabulary.borrow().as_deref().and_then(|v| serde_json::from_str(v).ok()).unwrap_or_default();
        Ok(CorpusState { committed: version.is_some(), version: version.unwrap_or_else(|| "empty".into()), vocabulary, scope: Scope::Shared })
    }

    async fn opened(&self, id: &str) -> Result<Option<Opened>, ApiError> {
        Ok(self.ingests.borrow().get(id).map(|(opened, _)| opened.clone()))
    }

    async fn pages_done(&self, id: &str) -> Result<Vec<u32>, ApiError> {
        Ok(self.ingests.borrow().get(id).map(|(_, pages)| pages.keys().copied().collect()).unwrap_or_default())
    }

    async fn open(&self, id: &str, base: &str, vocabulary: &str) -> Result<(), ApiError> {
        let opened = Opened { base: base.into(), vocabulary: vocabulary.into() };
        self.ingests.borrow_mut().insert(id.into(), (opened, BTreeMap::new()));
        Ok(())
    }

    async fn removable_docs(&self) -> Result<BTreeSet<String>, ApiError> {
        Ok(self.passages.borrow().values().filter(|(p, _)| p.origin != Origin::Operator).map(|(p, _)| p.doc.clone()).collect())
    }

    async fn page_basis(&self, id: &str, page: u32, stems: &BTreeSet<String>) -> Result<PageBasis, ApiError> {
        let ingests = self.ingests.borrow();
        let ingest = ingests.get(id);
        let conflict = ingest.and_then(|(_, pages)| {
            pages.iter().filter(|(n, _)| **n != page).flat_map(|(_, (docs, _))| docs.intersection(stems)).next().cloned()
        });
        let of_page: Vec<(StoredPassage, StoredText)> = self.passages.borrow().values().filter(|(p, _)| stems.contains(&p.doc)).cloned().collect();
        Ok(PageBasis {
            opened: ingest.map(|(opened, _)| opened.clone()),
            conflict,
            stored: of_page.iter().map(|(p, _)| p.clone()).collect(),
            old: of_page.into_iter().map(|(_, t)| t).collect(),
            committed_vocabulary: self.vocabulary.borrow().clone(),
        })
    }

    async fn embed(&self, plan: &IngestPlan) -> Result<f64, ApiError> {
        self.embedded.set(self.embedded.get() + plan.added.len() + plan.updated.len());
        Ok(0.0)
    }

    async fn stage(&self, id: &str, page: u32, plan: &IngestPlan, _: Vec<String>, _: &[StoredText], stems: &BTreeSet<String>) -> Result<(), ApiError> {
        let mut ingests = self.ingests.borrow_mut();
        let (_, pages) = ingests.get_mut(id).ok_or(ApiError::IngestUnknown)?;
        pages.insert(page, (stems.clone(), plan.clone()));
        Ok(())
    }

    async fn commit_basis(&self, id: &str) -> Result<CommitBasis, ApiError> {
        let ingests = self.ingests.borrow();
        let Some((opened, pages)) = ingests.get(id) else { return Ok(CommitBasis::default()) };
        Ok(CommitBasis {
            opened: Some(opened.clone()),
            deltas: pages.values().map(|(_, plan)| plan.delta.encode()).collect(),
            stored_digest: self.digest.borrow().as_ref().map(Digest::encode),
            removed: pages.values().flat_map(|(_, plan)| plan.removed.clone()).collect(),
            stats_of: None,
        })
    }

    async fn digest_from_rows(&self) -> Result<Digest, ApiError> {
        let mut digest = Digest::default();
        for (p, _) in self.passages.borrow().values() {
            digest.add(&p.id, &p.hash);
        }
        Ok(digest)
    }

    async fn apply(&self, commit: &Commit<'_>) -> Result<Applied, ApiError> {
        let current = self.version.borrow().clone().unwrap_or_else(|| "empty".into());
        if self.race.get() || current != commit.base {
            return Err(ApiError::IngestStale);
        }
        let (_, pages) = self.ingests.borrow_mut().remove(commit.id).ok_or(ApiError::IngestUnknown)?;
        let mut passages = self.passages.borrow_mut();
        for (_, plan) in pages.values() {
            for id in &plan.removed {
                passages.remove(id);
            }
            for p in plan.added.iter().chain(&plan.updated) {
                let origin = if p.doc == crate::review::OPERATOR_DOC { Origin::Operator } else { Origin::Corpus };
                let stored = StoredPassage { id: p.id.clone(), doc: p.doc.clone(), hash: p.content_hash(), origin };
                passages.insert(p.id.clone(), (stored, StoredText { id: p.id.clone(), section: p.section.clone(), text: p.text.clone() }));
            }
        }
        if let Some(docs) = commit.carry {
            for (opened, staged) in self.ingests.borrow_mut().values_mut() {
                if opened.base == commit.base && !staged.values().any(|(stems, _)| !stems.is_disjoint(docs)) {
                    opened.base = commit.version.to_string();
                }
            }
        }
        *self.version.borrow_mut() = Some(commit.version.to_string());
        *self.vocabulary.borrow_mut() = Some(commit.vocabulary_json.to_string());
        *self.digest.borrow_mut() = Some(*commit.digest);
        Ok(Applied::default())
    }

    async fn forget(&self, id: &str) -> Result<(), ApiError> {
        self.ingests.borrow_mut().remove(id);
        self.forgotten.borrow_mut().push(id.to_string());
        Ok(())
    }
}

/// The audit log.
pub struct FakeAudit {
    events: Events,
    pub records: RefCell<Vec<Record>>,
    /// Per (window, code): how many were refused before admission.
    pub rejected: RefCell<HashMap<(u64, String), u32>>,
    pub fail: Cell<bool>,
}

impl AuditLog for FakeAudit {
    async fn append(&self, record: &Record) -> Result<(), ApiError> {
        if self.fail.get() {
            return Err(failure("audit log"));
        }
        self.events.borrow_mut().push(Event::Append);
        self.records.borrow_mut().push(record.clone());
        Ok(())
    }

    async fn reject(&self, window_start: u64, code: &str) -> Result<(), ApiError> {
        if self.fail.get() {
            return Err(failure("audit log"));
        }
        self.events.borrow_mut().push(Event::Reject { code: code.to_string() });
        *self.rejected.borrow_mut().entry((window_start, code.to_string())).or_default() += 1;
        Ok(())
    }
}

/// A [`MemoryCorpus`] that can be told to fail, as D1 can.
pub struct FakeCorpus {
    pub inner: MemoryCorpus,
    pub fail: Cell<bool>,
    /// As before the first ingest commits: the state says nothing is committed.
    pub uncommitted: Cell<bool>,
}

impl Corpus for FakeCorpus {
    async fn state(&self) -> Result<CorpusState, ApiError> {
        if self.fail.get() {
            return Err(failure("corpus"));
        }
        let state = self.inner.state().await?;
        Ok(CorpusState { committed: !self.uncommitted.get(), ..state })
    }

    async fn workspace(&self, secret_hash: &str, now: u64) -> Result<Option<WorkspaceState>, ApiError> {
        if self.fail.get() {
            return Err(failure("corpus"));
        }
        self.inner.workspace(secret_hash, now).await
    }

    async fn lookup(&self, scope: &Scope, query: &Query<'_>) -> Result<Lookup, ApiError> {
        if self.fail.get() {
            return Err(failure("corpus"));
        }
        self.inner.lookup(scope, query).await
    }

    async fn passages(&self, scope: &Scope, ids: &[String]) -> Result<Vec<StoredHit>, ApiError> {
        if self.fail.get() {
            return Err(failure("corpus"));
        }
        Corpus::passages(&self.inner, scope, ids).await
    }

    async fn references(&self, scope: &Scope, from: &[String]) -> Result<Vec<(String, StoredHit)>, ApiError> {
        if self.fail.get() {
            return Err(failure("corpus"));
        }
        self.inner.references(scope, from).await
    }
}

/// How one model call answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behavior {
    /// A careful model: the generator quotes the first passage's first
    /// sentence and cites it; the judge makes one claim per answer sentence,
    /// scored 1 against the passage that holds it. Usage: the call's bound.
    Careful,
    /// The same reply, with no usage reported.
    NoUsage,
    /// The same reply, reporting a billion tokens.
    HugeUsage,
    /// Output that is not JSON.
    Broken,
    /// The call fails.
    Fail,
    /// The call times out.
    Timeout,
}

/// Paid models that follow a script: each call takes the next behavior, and
/// the last one repeats.
pub struct ScriptedModels {
    events: Events,
    pub script: RefCell<VecDeque<Behavior>>,
    /// Vector dimensions (`EMBEDDING_DIMENSIONS`).
    pub dimensions: usize,
    /// The ids the index returns, nearest first.
    pub nearest_ids: Vec<String>,
}

impl ScriptedModels {
    fn next(&self) -> Behavior {
        self.events.borrow_mut().push(Event::Model);
        let mut script = self.script.borrow_mut();
        if script.len() > 1 { script.pop_front().unwrap_or(Behavior::Careful) } else { script.front().copied().unwrap_or(Behavior::Careful) }
    }

    fn usage(behavior: Behavior, bound: Usage) -> Result<Reported, ModelError> {
        match behavior {
            Behavior::Careful | Behavior::Broken => Ok(Reported { input_tokens: Some(bound.input_tokens), output_tokens: Some(bound.output_tokens) }),
            Behavior::NoUsage => Ok(Reported::default()),
            Behavior::HugeUsage => Ok(Reported { input_tokens: Some(1_000_000_000), output_tokens: Some(1_000_000_000) }),
            Behavior::Fail => Err(ModelError::Failed("scripted failure".into())),
            Behavior::Timeout => Err(ModelError::Timeout),
        }
    }
}

/// The passages of a fenced prompt: (id, text).
fn fenced(prompt: &str) -> Vec<(String, String)> {
    prompt
        .split("<passage id=\"")
        .skip(1)
        .filter_map(|part| {
            let (id, rest) = part.split_once('"')?;
            let text = rest.split_once(">\n")?.1.split("\n</passage>").next()?;
            Some((id.to_string(), text.replace("&lt;", "<").replace("&gt;", ">")))
        })
        .collect()
}

/// The answer a judge prompt carries, read back out of its fence.
pub fn judged_answer(prompt: &str) -> String {
    let fenced = prompt.rsplit("<answer>\n").next().unwrap_or_default();
    let answer = fenced.strip_suffix("\n</answer>").unwrap_or(fenced);
    answer.replace("&lt;", "<").replace("&gt;", ">")
}

impl Models for ScriptedModels {
    async fn embed(&self, texts: &[String]) -> Result<Embeddings, ModelError> {
        let behavior = self.next();
        let bound = Usage { input_tokens: texts.iter().map(|t| t.len() as u64).sum(), output_tokens: 0 };
        let usage = Self::usage(behavior, bound)?;
        Ok(Embeddings { vectors: texts.iter().map(|_| vec![0.0; self.dimensions]).collect(), usage })
    }

    async fn chat(&self, _: Role, messages: &[Message], _: &Value, max_tokens: u32) -> Result<Reply, ModelError> {
        let behavior = self.next();
        let usage = Self::usage(behavior, cost::call_bound(messages, max_tokens))?;
        if behavior == Behavior::Broken {
            return Ok(Reply { text: "Sure! {\"answer\": \"the".into(), usage });
        }
        let prompt = messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n");
        let passages = fenced(&prompt);
        let text = if messages[0].content.starts_with("You turn a question") {
            // A careful rewriter: the question's words and the headings' that share one.
            let question = prompt.rsplit("Question: ").next().unwrap_or_default();
            let words = crate::text::terms(question);
            let headings = prompt.split("<heading>").skip(1).filter_map(|h| h.split("</heading>").next());
            let related: Vec<&str> = headings.filter(|h| crate::text::terms(h).iter().any(|t| words.contains(t))).collect();
            serde_json::json!({ "query": format!("{question} {}", related.join(" ")) })
        } else if messages[0].content.starts_with("You answer questions") {
            let first = passages.first().and_then(|(id, text)| Some((id.clone(), crate::text::sentences(text).first()?.to_string())));
            match first {
                Some((id, sentence)) => serde_json::json!({ "answer": sentence, "citations": [id] }),
                None => serde_json::json!({ "answer": "", "citations": [] }),
            }
        } else {
            let answer = judged_answer(&prompt);
            let claims: Vec<Value> = crate::text::sentences(&answer)
                .into_iter()
                .map(|claim| {
                    let holder = passages.iter().find(|(_, text)| text.contains(claim)).map(|(id, _)| id.clone());
                    serde_json::json!({ "claim": claim, "score": if holder.is_some() { 1.0 } else { 0.0 }, "passages": holder.into_iter().collect::<Vec<_>>() })
                })
                .collect();
            serde_json::json!({ "claims": claims })
        };
        Ok(Reply { text: text.to_string(), usage })
    }

    async fn nearest(&self, _: &Scope, _: &[f32], k: usize) -> Result<Vec<(String, f64)>, ModelError> {
        let behavior = self.next();
        Self::usage(behavior, Usage::default())?;
        Ok(self.nearest_ids.iter().take(k).enumerate().map(|(i, id)| (id.clone(), 0.9 - i as f64 * 0.01)).collect())
    }

    async fn vectors(&self, _: &Scope, ids: &[String]) -> Result<Vec<(String, Vec<f32>)>, ModelError> {
        let behavior = self.next();
        Self::usage(behavior, Usage::default())?;
        Ok(ids.iter().map(|id| (id.clone(), vec![0.0; self.dimensions])).collect())
    }
}

/// A clock that moves one millisecond each time it is read.
pub struct FakeClock {
    pub now_ms: Cell<f64>,
}

impl Clock for FakeClock {
    fn now_ms(&self) -> f64 {
        let now = self.now_ms.get();
        self.now_ms.set(now + 1.0);
        now
    }
}

/// Alarms kept for the test to read.
#[derive(Default)]
pub struct FakeAlarms {
    pub raised: RefCell<Vec<String>>,
}

impl Alarms for FakeAlarms {
    fn alarm(&self, message: &str) {
        self.raised.borrow_mut().push(message.to_string());
    }
}

/// The webhook: what was noted, and what was sent (in order).
pub struct FakeNotifier {
    events: Events,
    noted: RefCell<Vec<Escalation>>,
    pub sent: RefCell<Vec<Escalation>>,
}

impl Notifier for FakeNotifier {
    fn notify(&self, event: Escalation) {
        self.noted.borrow_mut().push(event);
    }

    async fn send(&self, _now: u64) {
        let noted: Vec<Escalation> = self.noted.borrow_mut().drain(..).collect();
        self.events.borrow_mut().push(Event::Send { sent: noted.len() });
        self.sent.borrow_mut().extend(noted);
    }
}

/// Every port, in memory, over one corpus.
pub struct FakePorts {
    pub events: Events,
    pub verifier: Option<FakeVerifier>,
    pub limiter: FakeLimiter,
    pub cache: FakeCache,
    pub ledger: FakeLedger,
    pub audit: FakeAudit,
    pub corpus: FakeCorpus,
    pub review: FakeReview,
    pub models: Option<ScriptedModels>,
    pub clock: FakeClock,
    pub alarms: FakeAlarms,
    pub notifier: FakeNotifier,
    pub ip_hash_key: Option<String>,
}

impl FakePorts {
    /// Fakes over `corpus` that all succeed, with careful models (Workers AI
    /// engine) of `dimensions` and no Turnstile secret.
    pub fn new(corpus: MemoryCorpus, dimensions: usize) -> FakePorts {
        let events: Events = Rc::default();
        let nearest_ids = corpus.passages().map(|p| p.id.clone()).collect();
        FakePorts {
            verifier: None,
            limiter: FakeLimiter { events: events.clone(), counts: RefCell::default(), fail: Cell::new(false) },
            cache: FakeCache { events: events.clone(), stored: RefCell::default() },
            ledger: FakeLedger {
                events: events.clone(),
                days: RefCell::default(),
                clients: RefCell::default(),
                charges: RefCell::default(),
                fail_reserve: Cell::new(false),
                failing_settles: Cell::new(0),
            },
            audit: FakeAudit { events: events.clone(), records: RefCell::default(), rejected: RefCell::default(), fail: Cell::new(false) },
            corpus: FakeCorpus { inner: corpus, fail: Cell::new(false), uncommitted: Cell::new(false) },
            review: FakeReview::default(),
            models: Some(ScriptedModels {
                events: events.clone(),
                script: RefCell::new(VecDeque::from([Behavior::Careful])),
                dimensions,
                nearest_ids,
            }),
            clock: FakeClock { now_ms: Cell::new(1_800_000_000_000.0) },
            alarms: FakeAlarms::default(),
            notifier: FakeNotifier { events: events.clone(), noted: RefCell::default(), sent: RefCell::default() },
            ip_hash_key: None,
            events,
        }
    }

    /// Turnstile enforced, accepting these tokens.
    pub fn with_turnstile(mut self, valid: &[&str]) -> FakePorts {
        self.verifier = Some(FakeVerifier { events: self.events.clone(), valid: valid.iter().map(|t| t.to_string()).collect() });
        self
    }

    /// The models' behaviors, call by call (the last repeats).
    pub fn script(&self, behaviors: &[Behavior]) {
        if let Some(models) = &self.models {
            *models.script.borrow_mut() = behaviors.iter().copied().collect();
        }
    }

    /// Everything that happened so far, in order.
    pub fn happened(&self) -> Vec<Event> {
        self.events.borrow().clone()
    }
}

impl Ports for FakePorts {
    type Verifier = FakeVerifier;
    type Limiter = FakeLimiter;
    type Cache = FakeCache;
    type Ledger = FakeLedger;
    type Audit = FakeAudit;
    type Corpus = FakeCorpus;
    type Review = FakeReview;
    type Models = ScriptedModels;
    type Clock = FakeClock;
    type Alarms = FakeAlarms;
    type Notifier = FakeNotifier;

    fn verifier(&self) -> Option<&FakeVerifier> {
        self.verifier.as_ref()
    }
    fn limiter(&self) -> &FakeLimiter {
        &self.limiter
    }
    fn cache(&self) -> &FakeCache {
        &self.cache
    }
    fn ledger(&self) -> &FakeLedger {
        &self.ledger
    }
    fn audit(&self) -> &FakeAudit {
        &self.audit
    }
    fn corpus(&self) -> &FakeCorpus {
        &self.corpus
    }
    fn review(&self) -> &FakeReview {
        &self.review
    }
    fn models(&self) -> Result<&ScriptedModels, ApiError> {
        self.models.as_ref().ok_or_else(|| ApiError::Misconfigured("the AI binding is missing".into()))
    }
    fn clock(&self) -> &FakeClock {
        &self.clock
    }
    fn alarms(&self) -> &FakeAlarms {
        &self.alarms
    }
    fn notifier(&self) -> &FakeNotifier {
        &self.notifier
    }
    fn ip_hash_key(&self) -> Option<&str> {
        self.ip_hash_key.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::prompts;

    /// The scripted models read passages back out of the pipeline's own fence.
    #[test]
    fn fenced_passages_are_read_back() {
        let hits = [crate::stages::retrieve::Hit {
            id: "a-01".into(),
            doc: "a".into(),
            section: "S".into(),
            text: "One <b>. Two.".into(),
            score: 1.0,
            lexical_rank: Some(1),
            ..Default::default()
        }];
        let prompt = prompts::fence(&hits);
        assert_eq!(fenced(&prompt), [("a-01".to_string(), "One <b>. Two.".to_string())]);
        let judged = prompts::judge_messages("q?", "Pay <b>now</b>.\nAnswer: no.", &hits);
        assert_eq!(judged_answer(&judged[1].content), "Pay <b>now</b>.\nAnswer: no.");
    }
}
