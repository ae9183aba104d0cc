//! Workspaces: a visitor's own documents, private to whoever holds the
//! workspace's secret, retrieved beside the shared corpus or alone, and deleted
//! once they expire. This is the pure part: ids and secrets, the scope of a
//! request, an upload's kind and its ingest plan under the workspace limits.
//!
//! Isolation rests on the secret alone, never on the client's IP (many people
//! share one). Every passage carries its workspace, the full-text index has a
//! `scope` column (`shared`, or `w` + the workspace id) that every match is
//! restricted to, and vectors live in a Vectorize namespace of the same name.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

use crate::api::error::{ApiError, DocumentError};
use crate::corpus::chunk::{self, hex, Passage};
use crate::corpus::ingest::{self, IngestPlan, StoredPassage};
use crate::corpus::pdf::{self, Page};
use crate::corpus::vocabulary::Vocabulary;

/// What every workspace secret starts with, so a leaked one is recognisable.
pub const SECRET_PREFIX: &str = "gws_";
/// The `scope` token (and Vectorize namespace) of the shared corpus.
pub const SHARED: &str = "shared";

/// A new workspace's id: 16 lowercase hex digits.
pub fn new_id(random: &[u8; 8]) -> String {
    hex(random)
}

/// A new workspace's secret: [`SECRET_PREFIX`] and 64 hex digits. Only its
/// SHA-256 is stored ([`secret_hash`]).
pub fn new_secret(random: &[u8; 32]) -> String {
    format!("{SECRET_PREFIX}{}", hex(random))
}

/// The stored form of a secret. Secrets carry 256 random bits, so a plain
/// SHA-256 cannot be reversed by guessing.
pub fn secret_hash(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// Whether `raw` has the shape of a secret (anything else cannot match one,
/// and is refused before any lookup).
pub fn is_secret(raw: &str) -> bool {
    raw.strip_prefix(SECRET_PREFIX).is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()))
}

/// Whether `raw` has the shape of a workspace id.
pub fn is_id(raw: &str) -> bool {
    raw.len() == 16 && raw.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// The `scope` token (and Vectorize namespace) of a workspace, or of the
/// shared corpus for `None`: letters and digits only, one FTS5 token.
pub fn token(workspace: Option<&str>) -> String {
    workspace.map_or_else(|| SHARED.to_string(), |id| format!("w{id}"))
}

/// The cookie the demo page keeps a workspace secret in (`HttpOnly`).
pub const WORKSPACE_COOKIE: &str = "gg_workspace";

/// The `Set-Cookie` value that keeps `secret` for the demo page: sent back to
/// this origin only, never readable by scripts, and gone with the workspace
/// (`max_age` 0 clears it).
pub fn cookie(secret: &str, max_age: u64) -> String {
    format!("{WORKSPACE_COOKIE}={secret}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age={max_age}")
}

/// Whether a new workspace's cookie may replace the visitor's: not when the
/// browser says another site sent the request (its `Origin` or
/// `Sec-Fetch-Site`), or a cross-site form could swap a visitor's workspace
/// for one the attacker holds the secret of. The JSON reply still carries
/// the secret, for frontends that send it as a header.
pub fn cookie_allowed(own_origin: &str, origin: Option<&str>, fetch_site: Option<&str>) -> bool {
    let same_origin = origin.is_none_or(|o| o.eq_ignore_ascii_case(own_origin));
    let same_site = fetch_site.is_none_or(|site| matches!(site, "same-origin" | "none"));
    same_origin && same_site
}

/// A live workspace, as a request sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceState {
    pub id: String,
    /// The version of its passages ([`ingest::corpus_version`]).
    pub version: String,
    /// Unix seconds.
    pub expires_at: u64,
}

/// What a request asked to search: everything it may see, or its workspace alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reach {
    /// The shared corpus, and the workspace when a secret is sent (`"all"`).
    #[default]
    All,
    /// The workspace alone (`"workspace"`: "my documents only").
    Workspace,
}

impl Reach {
    /// The `scope` field of a request, if it sent one.
    pub fn parse(raw: &str) -> Result<Reach, ApiError> {
        match raw {
            "all" => Ok(Reach::All),
            "workspace" => Ok(Reach::Workspace),
            other => Err(ApiError::BadRequest(format!("`scope` must be \"all\" or \"workspace\", not {other:?}"))),
        }
    }
}

/// Which passages one request may see.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Scope {
    /// The shared corpus only (no workspace secret sent).
    #[default]
    Shared,
    /// The shared corpus and this workspace.
    With(String),
    /// This workspace alone.
    Only(String),
}

impl Scope {
    /// The scope of a request that asked for `reach`, holding the secret of
    /// `workspace` (if any). Asking for the workspace alone without one is a
    /// bad request, not an empty answer.
    pub fn resolve(reach: Reach, workspace: Option<&WorkspaceState>) -> Result<Scope, ApiError> {
        match (reach, workspace) {
            (Reach::All, None) => Ok(Scope::Shared),
            (Reach::All, Some(w)) => Ok(Scope::With(w.id.clone())),
            (Reach::Workspace, Some(w)) => Ok(Scope::Only(w.id.clone())),
            (Reach::Workspace, None) => {
                Err(ApiError::BadRequest("`scope: \"workspace\"` needs a workspace secret (the Workspace-Secret header)".into()))
            }
        }
    }

    pub fn workspace(&self) -> Option<&str> {
        match self {
            Scope::Shared => None,
            Scope::With(id) | Scope::Only(id) => Some(id),
        }
    }

    /// The `scope` tokens (and Vectorize namespaces) this scope reads.
    pub fn tokens(&self) -> Vec<String> {
        match self {
            Scope::Shared => vec![token(None)],
            Scope::With(id) => vec![token(None), token(Some(id))],
            Scope::Only(id) => vec![token(Some(id))],
        }
    }

    /// Whether a passage of `workspace` (`None`: shared) is in scope.
    pub fn allows(&self, workspace: Option<&str>) -> bool {
        match (self, workspace) {
            (Scope::Only(_), None) => false,
            (_, None) => true,
            (scope, Some(w)) => scope.workspace() == Some(w),
        }
    }

    /// An FTS5 expression matching every passage in scope.
    pub fn everything(&self) -> String {
        format!("scope : ({})", self.tokens().join(" OR "))
    }

    /// `expression`, over the `terms` column, restricted to this scope.
    pub fn restrict(&self, expression: &str) -> String {
        format!("{} AND {{terms heading}} : ({expression})", self.everything())
    }

    /// The version answers in this scope depend on: the shared corpus's, the
    /// workspace's, or both. Part of every cache key and every response.
    pub fn version(&self, shared: &str, workspace: Option<&WorkspaceState>) -> String {
        let ws = workspace.map_or("none", |w| w.version.as_str());
        match self {
            Scope::Shared => shared.to_string(),
            Scope::With(id) => format!("{shared}+w{id}:{ws}"),
            Scope::Only(id) => format!("w{id}:{ws}"),
        }
    }
}

/// The limits on workspaces, each a var (see `config`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest uploaded file, in bytes.
    pub max_file_bytes: usize,
    /// Most characters of text one file may yield (after PDF extraction).
    pub max_chars: usize,
    /// Most passages one workspace may hold.
    pub max_passages: usize,
    /// Most workspaces one client may create per UTC day.
    pub per_client_per_day: u32,
    /// How long a workspace lives, in seconds.
    pub ttl_seconds: u64,
    /// Most live workspaces, all clients together.
    pub max_live: u32,
    /// Most passages all workspaces together may hold.
    pub max_total_passages: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 2 * 1024 * 1024,
            max_chars: 200_000,
            max_passages: 400,
            per_client_per_day: 5,
            ttl_seconds: 24 * 3600,
            max_live: 1_000,
            max_total_passages: 100_000,
        }
    }
}

/// What an uploaded file is, by its declared content type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    Markdown,
    Text,
    Pdf,
}

impl DocumentKind {
    pub fn from_content_type(content_type: Option<&str>) -> Result<DocumentKind, ApiError> {
        let media = content_type.and_then(|ct| ct.split(';').next()).map(|m| m.trim().to_ascii_lowercase()).unwrap_or_default();
        match media.as_str() {
            "text/markdown" => Ok(DocumentKind::Markdown),
            "text/plain" => Ok(DocumentKind::Text),
            "application/pdf" => Ok(DocumentKind::Pdf),
            other => Err(DocumentError::Unsupported(if other.is_empty() { "no content type".into() } else { other.to_string() }).into()),
        }
    }
}

/// An uploaded file's text, as the chunker takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Document {
    /// Markdown as sent, or plain text under a title naming the file.
    Markdown(String),
    /// A PDF's pages: each passage keeps its page in its id (`doc:page:NN`).
    Pages(Vec<Page>),
}

impl Document {
    /// Reads an upload of `kind`: a PDF's text by page; text as UTF-8, plain
    /// text under a title naming the file with no line read as a heading.
    pub fn read(kind: DocumentKind, name: &str, bytes: Vec<u8>) -> Result<Document, ApiError> {
        let utf8 = |bytes: Vec<u8>| String::from_utf8(bytes).map_err(|_| ApiError::BadRequest("the file is not UTF-8 text".into()));
        Ok(match kind {
            DocumentKind::Pdf => Document::Pages(pdf::extract(&bytes)?),
            DocumentKind::Markdown => Document::Markdown(utf8(bytes)?),
            DocumentKind::Text => Document::Markdown(chunk::plain_text(&chunk::doc_stem(name), &utf8(bytes)?)),
        })
    }

    /// Its length in characters, what [`Limits::max_chars`] bounds.
    fn chars(&self) -> usize {
        match self {
            Document::Markdown(text) => text.chars().count(),
            Document::Pages(pages) => pages.iter().map(|p| p.text.chars().count()).sum(),
        }
    }

    fn passages(&self, name: &str) -> Vec<Passage> {
        match self {
            Document::Markdown(text) => chunk::chunk_document(name, text),
            Document::Pages(pages) => chunk::chunk_pages(name, pages.iter().map(|p| (p.number, p.text.as_str()))),
        }
    }
}

/// The ingest plan of one file uploaded to `workspace`, over the workspace's
/// `stored` passages: the file replaces an earlier one of the same name.
/// Refuses, storing nothing, a file with no text, more than
/// [`Limits::max_chars`] characters, or that would take the workspace past
/// [`Limits::max_passages`].
pub fn plan_upload(workspace: &str, name: &str, document: &Document, stored: &[StoredPassage], limits: &Limits) -> Result<IngestPlan, ApiError> {
    let stem = chunk::doc_stem(name);
    if stem.is_empty() {
        return Err(ApiError::BadRequest(format!("the file name {name:?} has no usable stem")));
    }
    let chars = document.chars();
    if chars > limits.max_chars {
        return Err(DocumentError::TooManyCharacters { chars, limit: limits.max_chars }.into());
    }
    let prefix = token(Some(workspace));
    let passages: Vec<Passage> = document.passages(name).into_iter().map(|p| Passage { id: format!("{prefix}-{}", p.id), ..p }).collect();
    if passages.iter().all(|p| p.text.trim().is_empty()) {
        return Err(DocumentError::NoText.into());
    }
    let kept = stored.iter().filter(|s| s.doc != stem).count();
    if kept + passages.len() > limits.max_passages {
        return Err(DocumentError::TooManyPassages { passages: kept + passages.len(), limit: limits.max_passages }.into());
    }
    let scope = BTreeSet::from([stem]);
    Ok(ingest::plan(stored, passages, &scope, false, &Vocabulary::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_origin_or_a_client_without_one_gets_the_cookie() {
        let own = "https://gate.example";
        assert!(cookie_allowed(own, None, None), "curl and server-side clients");
        assert!(cookie_allowed(own, Some(own), Some("same-origin")), "the demo page");
        assert!(!cookie_allowed(own, Some("https://evil.example"), None), "a cross-site form");
        assert!(!cookie_allowed(own, Some("null"), None), "a sandboxed or opaque origin");
        assert!(!cookie_allowed(own, None, Some("cross-site")));
        assert!(!cookie_allowed(own, Some(own), Some("same-site")), "a sibling subdomain is another origin");
    }

    fn live(id: &str) -> WorkspaceState {
        WorkspaceState { id: id.into(), version: "v1".into(), expires_at: 10 }
    }

    #[test]
    fn ids_and_secrets_have_one_shape() {
        let id = new_id(&[0xab; 8]);
        let secret = new_secret(&[7; 32]);
        assert!(is_id(&id) && is_secret(&secret));
        assert!(!is_secret(&id) && !is_id(&secret));
        assert!(!is_secret(&secret.to_uppercase()), "exactly as issued");
        assert!(!is_secret("gws_short"));
        assert_eq!(secret_hash(&secret).len(), 64);
        assert_ne!(secret_hash(&secret), secret_hash(&new_secret(&[8; 32])));
    }

    #[test]
    fn a_scope_reads_its_own_tokens_only() {
        let a = "00000000000000aa";
        assert_eq!(Scope::resolve(Reach::All, None).unwrap(), Scope::Shared);
        assert_eq!(Scope::resolve(Reach::All, Some(&live(a))).unwrap(), Scope::With(a.into()));
        assert_eq!(Scope::resolve(Reach::Workspace, Some(&live(a))).unwrap(), Scope::Only(a.into()));
        assert_eq!(Scope::resolve(Reach::Workspace, None).unwrap_err().code(), "bad_request");

        let with = Scope::With(a.into());
        assert_eq!(with.restrict("\"desk\""), "scope : (shared OR w00000000000000aa) AND {terms heading} : (\"desk\")");
        assert_eq!(Scope::Only(a.into()).everything(), "scope : (w00000000000000aa)");
        assert!(with.allows(None) && with.allows(Some(a)) && !with.allows(Some("00000000000000bb")));
        assert!(!Scope::Only(a.into()).allows(None));
        assert!(!Scope::Shared.allows(Some(a)), "no workspace without its secret");
    }

    /// The version of the scope: a new upload, or the other scope, is another cache key.
    #[test]
    fn versions_name_every_part() {
        let a = "00000000000000aa";
        let ws = live(a);
        assert_eq!(Scope::Shared.version("s1", None), "s1");
        let with = Scope::With(a.into()).version("s1", Some(&ws));
        let only = Scope::Only(a.into()).version("s1", Some(&ws));
        assert_ne!(with, only);
        assert_ne!(with, Scope::With(a.into()).version("s1", Some(&WorkspaceState { version: "v2".into(), ..ws })));
    }

    #[test]
    fn kinds_by_content_type() {
        assert_eq!(DocumentKind::from_content_type(Some("text/markdown; charset=utf-8")).unwrap(), DocumentKind::Markdown);
        assert_eq!(DocumentKind::from_content_type(Some("Application/PDF")).unwrap(), DocumentKind::Pdf);
        for bad in [None, Some("image/png"), Some("application/json")] {
            assert_eq!(DocumentKind::from_content_type(bad).unwrap_err().code(), "unsupported_document");
        }
    }

    #[test]
    fn plain_text_gets_a_title_and_no_headings() {
        let read = Document::read(DocumentKind::Text, "Notes 2026.txt", b"# not a heading\nLine two.".to_vec()).unwrap();
        assert_eq!(read, Document::Markdown("# notes-2026\n\n not a heading\nLine two.".into()));
        assert_eq!(Document::read(DocumentKind::Markdown, "a.md", vec![0xff]).unwrap_err().code(), "bad_request");
    }

    /// D1 statements of a workspace write (`glue::d1`): four deletes per
    /// array of touched passages, four inserts per array of rows, and the
    /// version's update.
    fn write_statements(plan: &IngestPlan) -> usize {
        let rows = crate::corpus::paging::staged_rows(plan, crate::api::response::Origin::Upload, &Default::default(), Some("00000000000000aa")).unwrap();
        crate::corpus::paging::touched_rows(plan).len() * 4 + rows.len() * 4 + 1
    }

    /// The largest upload the default limits allow, and its re-upload with
    /// every passage changed, ASCII or not, are written in a few set-based
    /// statements: inside the Free plan's 50 D1 queries per invocation with
    /// room for the request's reads, whatever the passage count.
    #[test]
    fn the_largest_default_upload_and_its_reupload_are_a_few_statements() {
        let limits = Limits::default();
        let ws = "00000000000000aa";
        // About 400 passages of non-ASCII text (two or three bytes a character).
        let paragraph = "Каждое слово здесь не ASCII — ü, 東京, ƒ, ∑, участники могут бронировать тихую комнату. ".repeat(10);
        let mut text = String::from("# Раздел\n\n");
        for i in 0..199 {
            text.push_str(&format!("## Часть {i}\n\n{paragraph}\n\n"));
        }
        let first = plan_upload(ws, "h.md", &Document::Markdown(text.clone()), &[], &limits).unwrap();
        assert!(first.added.len() > 380, "{} passages", first.added.len());
        let stored: Vec<StoredPassage> =
            first.added.iter().map(|p| StoredPassage { id: p.id.clone(), doc: p.doc.clone(), hash: p.content_hash(), origin: Default::default() }).collect();
        let again = plan_upload(ws, "h.md", &Document::Markdown(text.replace("ü", "ö")), &stored, &limits).unwrap();
        assert_eq!(again.updated.len(), first.added.len(), "every passage changed");
        for plan in [&first, &again] {
            let statements = write_statements(plan);
            assert!(statements <= 45, "{statements} statements");
        }
    }

    #[test]
    fn the_largest_default_upload_is_a_few_statements() {
        let limits = Limits::default();
        let paragraph = "Members may book the quiet room for two hours at a time, see Section 4 for the rules. ".repeat(12);
        let mut text = String::from("# Handbook\n\n");
        while text.chars().count() + paragraph.len() + 2 < limits.max_chars {
            text.push_str(&paragraph);
            text.push_str("\n\n");
        }
        let plan = plan_upload("00000000000000aa", "handbook.md", &Document::Markdown(text), &[], &limits).unwrap();
        let rows = crate::corpus::paging::staged_rows(&plan, crate::api::response::Origin::Upload, &Default::default(), Some("00000000000000aa")).unwrap();
        assert!(plan.added.len() > 150, "{} passages", plan.added.len());
        assert!(write_statements(&plan) <= 42, "{} arrays", rows.len());
        assert!(rows[0].contains("\"w00000000000000aa/n:4\""), "references scoped to the workspace");
    }

    /// A PDF's passages carry their page: `doc:page:NN`, NN counted per page.
    #[test]
    fn pdf_passages_are_numbered_by_page() {
        let pages = vec![Page { number: 1, text: "The ferry leaves at 7:15 am.".into() }, Page { number: 3, text: "Tickets are sold on board.".into() }];
        let plan = plan_upload("00000000000000aa", "Timetable.pdf", &Document::Pages(pages), &[], &Limits::default()).unwrap();
        let ids: Vec<&str> = plan.added.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["w00000000000000aa-timetable:1:01", "w00000000000000aa-timetable:3:01"]);
        assert_eq!(ids.iter().map(|id| chunk::page_of(id)).collect::<Vec<_>>(), [Some(1), Some(3)]);
    }

    #[test]
    fn uploads_are_planned_inside_their_limits() {
        let ws = "00000000000000aa";
        let limits = Limits { max_chars: 500, max_passages: 2, ..Limits::default() };
        let md = |text: &str| Document::Markdown(text.into());
        let plan = plan_upload(ws, "notes.md", &md("# Notes\n\nThe boat leaves at noon."), &[], &limits).unwrap();
        assert_eq!(plan.added.len(), 1);
        assert!(plan.added[0].id.starts_with("w00000000000000aa-notes-"), "{}", plan.added[0].id);

        let codes = |r: Result<IngestPlan, ApiError>| r.unwrap_err().code();
        assert_eq!(codes(plan_upload(ws, "notes.md", &md(&"word ".repeat(200)), &[], &limits)), "too_many_characters");
        assert_eq!(codes(plan_upload(ws, "notes.md", &md("# Only a title\n"), &[], &limits)), "no_text");
        let stored: Vec<StoredPassage> =
            (1..=2).map(|i| StoredPassage { id: format!("w{ws}-old-{i:02}"), doc: "old".into(), hash: "h".into(), origin: Default::default() }).collect();
        assert_eq!(codes(plan_upload(ws, "notes.md", &md("# N\n\nOne sentence."), &stored, &limits)), "too_many_passages");
        // Replacing the same document does not count its old passages twice.
        assert!(plan_upload(ws, "old.md", &md("# Old\n\nA new text."), &stored, &limits).is_ok());
    }
}
