//! Escalations: what an operator is told where they already work, by a
//! signed webhook (`ESCALATION_WEBHOOK_URL`). This is the pure part: the
//! events, the key that sends each once, the body a receiver gets (a
//! versioned JSON schema, or a Slack message with blocks), its signature, and
//! when a failed delivery is tried again. The glue only sends and queues.
//!
//! Privacy: only a review item carries the question (an item exists only
//! with `REVIEW_INBOX` on); no body carries an IP, a client's keyed hash, a
//! workspace's id or secret, or a passage's text.

use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::corpus::chunk::hex;

/// The JSON body's schema; a receiver dispatches on it.
pub const SCHEMA: &str = "groundgate.escalation/1";
/// `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
pub const SIGNATURE_HEADER: &str = "groundgate-signature";
/// The delivery's id: the same on every attempt, so a receiver drops repeats.
pub const DELIVERY_HEADER: &str = "groundgate-delivery";
/// The event's type ([`Kind::name`]).
pub const EVENT_HEADER: &str = "groundgate-event";

/// A review item is sent when it is queued, and again when it has been
/// asked this many times.
const REVIEW_MILESTONES: [u32; 3] = [1, 10, 100];
/// The longest question a Slack message quotes (characters).
const SLACK_QUESTION_CHARS: usize = 500;
/// The cron's period: a first retry waits for its next run; later ones
/// double from here, up to [`MAX_RETRY_DELAY`].
const RETRY_DELAY: u64 = 30 * 60;
const MAX_RETRY_DELAY: u64 = 12 * 3600;

/// What an escalation is about (`ESCALATION_EVENTS` names them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    ReviewItem,
    SpendAlarm,
    AuditBroken,
    IngestFailed,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::ReviewItem, Kind::SpendAlarm, Kind::AuditBroken, Kind::IngestFailed];

    pub fn name(self) -> &'static str {
        match self {
            Kind::ReviewItem => "review.item",
            Kind::SpendAlarm => "spend.alarm",
            Kind::AuditBroken => "audit.broken",
            Kind::IngestFailed => "ingest.failed",
        }
    }

    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// The body's format (`ESCALATION_FORMAT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// [`SCHEMA`], described under `webhooks` in `openapi.json`.
    Json,
    /// A Slack incoming-webhook message with blocks.
    Slack,
}

/// How escalations are sent (`ESCALATION_*` vars; the webhook's URL and
/// signing secret are secrets, read by the glue).
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// `ESCALATION_EVENTS`: comma-separated [`Kind::name`]s; all by default.
    pub events: Vec<Kind>,
    pub format: Format,
    /// Attempts per delivery, the first included, before it is given up.
    pub max_attempts: u32,
    /// Bound on one attempt.
    pub timeout_ms: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { events: Kind::ALL.to_vec(), format: Format::Json, max_attempts: 8, timeout_ms: 3000 }
    }
}

impl Settings {
    /// Reads `ESCALATION_EVENTS` ("all", or names) and `ESCALATION_FORMAT`
    /// ("json" or "slack"); an unknown word is an error naming it.
    pub fn parse_events(raw: &str) -> Result<Vec<Kind>, String> {
        if raw.trim() == "all" {
            return Ok(Kind::ALL.to_vec());
        }
        raw.split(',').map(str::trim).filter(|n| !n.is_empty()).map(|n| Kind::parse(n).ok_or_else(|| format!("ESCALATION_EVENTS names an unknown event {n:?} (known: {})", Kind::ALL.map(Kind::name).join(", ")))).collect()
    }

    pub fn parse_format(raw: &str) -> Result<Format, String> {
        match raw.trim() {
            "json" => Ok(Format::Json),
            "slack" => Ok(Format::Slack),
            other => Err(format!("ESCALATION_FORMAT {other:?} is not \"json\" or \"slack\"")),
        }
    }

    /// Whether events of `kind` are sent.
    pub fn sends(&self, kind: Kind) -> bool {
        self.events.contains(&kind)
    }
}

/// Something an operator must hear of.
#[derive(Debug, Clone, PartialEq)]
pub enum Escalation {
    /// A question queued in the review inbox, or queued again `count` times.
    ReviewItem { item: u64, count: u32, question: String, reason: String, workspace: bool },
    /// A request used more than it reserved and was charged its reservation.
    SpendClamped { request_id: String, reserved: f64, used: f64 },
    /// The day's cap is reached: paid requests are refused (or answered locally).
    CapReached { day: String, cap: f64 },
    /// One client used its share of the day's cap. `client` (its keyed hash)
    /// only keeps this to one a day per client; it never goes out.
    ShareExhausted { day: String, share: f64, client: String },
    /// Audit verification found a row whose body, hash or place is wrong.
    AuditBroken { first_bad_row: u64, why: String },
    /// A commit to the shared corpus (an ingest's, or an operator's) failed
    /// or went stale.
    IngestFailed { ingest: String, code: &'static str, message: String },
}

/// One attempt's envelope: its id, when the event was raised, the format,
/// and the worker's public origin (for links to the operator page).
#[derive(Debug, Clone, Copy)]
pub struct Envelope<'a> {
    pub id: &'a str,
    pub created_at: u64,
    pub format: Format,
    pub origin: Option<&'a str>,
}

impl Escalation {
    /// The review-inbox escalation of item `item` now asked `count` times,
    /// when `count` is one that is sent.
    pub fn review_item(item: u64, count: u32, question: &str, reason: &str, workspace: bool) -> Option<Escalation> {
        REVIEW_MILESTONES.contains(&count).then(|| Escalation::ReviewItem {
            item,
            count,
            question: question.to_string(),
            reason: reason.to_string(),
            workspace,
        })
    }

    pub fn kind(&self) -> Kind {
        match self {
            Escalation::ReviewItem { .. } => Kind::ReviewItem,
            Escalation::SpendClamped { .. } | Escalation::CapReached { .. } | Escalation::ShareExhausted { .. } => Kind::SpendAlarm,
            Escalation::AuditBroken { .. } => Kind::AuditBroken,
            Escalation::IngestFailed { .. } => Kind::IngestFailed,
        }
    }

    /// What makes two escalations the same one, hashed: a key is sent once.
    pub fn key(&self) -> String {
        let raw = match self {
            Escalation::ReviewItem { item, count, .. } => format!("review:{item}:{count}"),
            Escalation::SpendClamped { request_id, .. } => format!("clamped:{request_id}"),
            Escalation::CapReached { day, .. } => format!("cap:{day}"),
            Escalation::ShareExhausted { day, client, .. } => format!("share:{day}:{client}"),
            Escalation::AuditBroken { first_bad_row, why } => format!("audit:{first_bad_row}:{why}"),
            Escalation::IngestFailed { ingest, code, .. } => format!("ingest:{ingest}:{code}"),
        };
        hex(&Sha256::digest(raw.as_bytes()))
    }

    /// The operator page's link to a review item.
    fn link(&self, origin: Option<&str>) -> Option<String> {
        match self {
            Escalation::ReviewItem { item, .. } => origin.map(|o| format!("{}/operator.html#item={item}", o.trim_end_matches('/'))),
            _ => None,
        }
    }

    /// The event's fields, as [`SCHEMA`] has them.
    fn data(&self, link: Option<&str>) -> Value {
        match self {
            Escalation::ReviewItem { item, count, question, reason, workspace } => json!({
                "item": item,
                "count": count,
                "question": question,
                "reason": reason,
                "scope": if *workspace { "workspace" } else { "shared" },
                "link": link,
            }),
            Escalation::SpendClamped { request_id, reserved, used } => json!({
                "alarm": "clamped", "requestId": request_id, "reservedNeurons": reserved, "usedNeurons": used,
            }),
            Escalation::CapReached { day, cap } => json!({ "alarm": "cap_reached", "day": day, "capNeurons": cap }),
            Escalation::ShareExhausted { day, share, .. } => json!({ "alarm": "share_exhausted", "day": day, "shareNeurons": share }),
            Escalation::AuditBroken { first_bad_row, why } => json!({ "firstBadRow": first_bad_row, "why": why }),
            Escalation::IngestFailed { ingest, code, message } => json!({ "ingest": ingest, "code": code, "message": message }),
        }
    }

    /// One line for a person: Slack's headline (mrkdwn, escaped).
    fn headline(&self) -> String {
        match self {
            Escalation::ReviewItem { count: 1, .. } => "Review inbox: a question was refused".into(),
            Escalation::ReviewItem { count, .. } => format!("Review inbox: a refused question has been asked {count} times"),
            Escalation::SpendClamped { request_id, reserved, used } => format!(
                "Spend alarm: request `{}` used {used:.1} neurons, over its reservation of {reserved:.1}; it was charged the reservation",
                slack_escape(request_id)
            ),
            Escalation::CapReached { day, cap } => format!("Spend alarm: the daily cap of {cap:.0} neurons is reached for {day}"),
            Escalation::ShareExhausted { day, share, .. } => format!("Spend alarm: a client used its whole share ({share:.0} neurons) of the cap for {day}"),
            Escalation::AuditBroken { first_bad_row, why } => format!("Audit chain broken at row {first_bad_row}: {}", slack_escape(why)),
            Escalation::IngestFailed { ingest, code, message } => {
                format!("Ingest `{}` did not commit ({code}): {}", slack_escape(ingest), slack_escape(message))
            }
        }
    }

    /// The request body, in `envelope`'s format.
    pub fn body(&self, envelope: &Envelope<'_>) -> String {
        let link = self.link(envelope.origin);
        let body = match envelope.format {
            Format::Json => json!({
                "schema": SCHEMA,
                "id": envelope.id,
                "type": self.kind().name(),
                "createdAt": envelope.created_at,
                "data": self.data(link.as_deref()),
            }),
            Format::Slack => self.slack(envelope.id, link.as_deref()),
        };
        body.to_string()
    }

    /// A Slack message: the headline, the question quoted (review items),
    /// the event and delivery ids, and a button to the operator page.
    fn slack(&self, id: &str, link: Option<&str>) -> Value {
        let headline = self.headline();
        let mut text = format!("*{headline}*");
        if let Escalation::ReviewItem { question, reason, workspace, .. } = self {
            let question: String = question.chars().take(SLACK_QUESTION_CHARS).collect();
            let scope = if *workspace { "a workspace" } else { "the shared corpus" };
            text += &format!("\n>{}\nRefused: `{}`, asked of {scope}", slack_escape(&question).replace('\n', "\n>"), slack_escape(reason));
        }
        let mut blocks = vec![
            json!({ "type": "section", "text": { "type": "mrkdwn", "text": text } }),
            json!({ "type": "context", "elements": [{ "type": "mrkdwn", "text": format!("groundgate · {} · delivery {id}", self.kind().name()) }] }),
        ];
        if let Some(url) = link {
            let button = json!({ "type": "button", "text": { "type": "plain_text", "text": "Open in the review inbox" }, "url": url });
            blocks.push(json!({ "type": "actions", "elements": [button] }));
        }
        json!({ "text": headline, "blocks": blocks })
    }
}

/// Slack's mrkdwn escapes: a question can neither link nor mention anyone.
fn slack_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The signature header's value for `body` sent at `timestamp`.
pub fn sign(secret: &str, timestamp: u64, body: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(format!("{timestamp}.{body}").as_bytes());
    format!("t={timestamp},v1={}", hex(&mac.finalize().into_bytes()))
}

/// When a delivery that failed `attempts` times is tried again: at the
/// cron's next run after the first failure, then after 30 minutes, doubling
/// up to 12 hours.
pub fn retry_at(attempts: u32, now: u64) -> u64 {
    match attempts {
        0 | 1 => now,
        n => now + (RETRY_DELAY << (n - 2).min(16)).min(MAX_RETRY_DELAY),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(format: Format) -> Envelope<'static> {
        Envelope { id: "d-1", created_at: 1_800_000_000, format, origin: Some("https://gate.example/") }
    }

    fn review(count: u32) -> Option<Escalation> {
        Escalation::review_item(7, count, "Can I <!channel> bring a dog & a cat?", "not_in_corpus", true)
    }

    #[test]
    fn a_review_item_is_sent_when_queued_and_at_ten_and_a_hundred_asks() {
        let sent: Vec<u32> = (1..=150).filter(|n| review(*n).is_some()).collect();
        assert_eq!(sent, [1, 10, 100]);
        assert_ne!(review(1).unwrap().key(), review(10).unwrap().key());
    }

    #[test]
    fn the_json_body_has_the_schema_and_no_client_or_workspace_identity() {
        let share = Escalation::ShareExhausted { day: "2027-01-01".into(), share: 100.0, client: "client-hash-abc".into() };
        let body = share.body(&envelope(Format::Json));
        assert!(!body.contains("client-hash-abc"), "{body}");
        let value: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(value["schema"], SCHEMA);
        assert_eq!(value["type"], "spend.alarm");
        assert_eq!(value["data"]["alarm"], "share_exhausted");
        let item: Value = serde_json::from_str(&review(10).unwrap().body(&envelope(Format::Json))).unwrap();
        assert_eq!(item["data"]["link"], "https://gate.example/operator.html#item=7");
        assert_eq!(item["data"]["scope"], "workspace");
        assert_eq!(item["data"]["count"], 10);
    }

    #[test]
    fn the_same_event_has_one_key_and_another_client_another() {
        let share = |client: &str| Escalation::ShareExhausted { day: "d".into(), share: 1.0, client: client.into() }.key();
        assert_eq!(share("a"), share("a"));
        assert_ne!(share("a"), share("b"));
        assert_eq!(share("a").len(), 64, "the key is a hash: the client's never goes out");
    }

    #[test]
    fn a_slack_message_escapes_the_question_and_links_the_item() {
        let body: Value = serde_json::from_str(&review(1).unwrap().body(&envelope(Format::Slack))).unwrap();
        let text = body["blocks"][0]["text"]["text"].as_str().unwrap();
        assert!(text.contains("&lt;!channel&gt;") && text.contains("dog &amp; a cat"), "{text}");
        assert!(!text.contains("<!channel>"));
        assert_eq!(body["blocks"][2]["elements"][0]["url"], "https://gate.example/operator.html#item=7");
        let alarm = Escalation::CapReached { day: "2027-01-01".into(), cap: 90.0 };
        let body: Value = serde_json::from_str(&alarm.body(&envelope(Format::Slack))).unwrap();
        assert_eq!(body["blocks"].as_array().unwrap().len(), 2, "no button without an item");
        assert!(body["text"].as_str().unwrap().contains("90 neurons"));
    }

    #[test]
    fn the_signature_is_hmac_sha256_of_the_timestamp_and_the_body() {
        // Computed apart: `printf '0.what do ya want for nothing?' | openssl dgst -sha256 -hmac Jefe`.
        let signed = sign("Jefe", 0, "what do ya want for nothing?");
        assert_eq!(signed, "t=0,v1=37f471929915ccd2cbbe79feb84ffcff4f2bb25e15fc41c2506687331ae179cc");
        assert_ne!(sign("Jefe", 1, "what do ya want for nothing?"), signed, "the timestamp is signed");
        assert_ne!(sign("other", 0, "what do ya want for nothing?"), signed);
    }

    #[test]
    fn retries_wait_for_the_next_cron_then_back_off_to_twelve_hours() {
        let delays: Vec<u64> = (1..=8).map(|n| retry_at(n, 1000) - 1000).collect();
        assert_eq!(delays, [0, 1800, 3600, 7200, 14_400, 28_800, 43_200, 43_200]);
        assert_eq!(retry_at(60, 0), MAX_RETRY_DELAY);
    }

    #[test]
    fn event_names_parse_back_and_an_unknown_one_is_named() {
        for kind in Kind::ALL {
            assert_eq!(Kind::parse(kind.name()), Some(kind));
        }
        assert_eq!(Settings::parse_events("spend.alarm, audit.broken"), Ok(vec![Kind::SpendAlarm, Kind::AuditBroken]));
        assert_eq!(Settings::parse_events("all"), Ok(Kind::ALL.to_vec()));
        assert!(Settings::parse_events("review").unwrap_err().contains("\"review\""));
        assert_eq!(Settings::parse_format("slack"), Ok(Format::Slack));
        assert!(Settings::parse_format("xml").is_err());
    }
}
