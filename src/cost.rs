//! Usage into cost, and the upper bound a request reserves before its first paid
//! call. The bound is true because every call the pipeline can make is counted,
//! every generation has a `max_tokens` cap, every prompt is built from inputs
//! with hard size bounds (the question, `TOP_K` passages with their headings
//! and ids, the generator's answer, a repair's echo), and tokens are bounded by
//! bytes.

use crate::api::request::MAX_QUESTION_CHARS;
use crate::config::{Config, Price};
use crate::corpus::chunk::{MAX_HEADING_CHARS, MAX_PASSAGE_CHARS, MAX_STEM_CHARS};
use crate::models::{Message, Usage};
use crate::stages::prompts;
use crate::stages::retrieve::Hit;

/// Workers AI bills $0.011 per 1,000 neurons.
pub const USD_PER_NEURON: f64 = 0.011 / 1000.0;

/// The price of a model. [`Config::from_vars`] refuses a config whose models lack
/// a price, so the fallback (the dearest known price) only guards against a
/// hand-built config: an unpriced model is never free.
pub fn price(config: &Config, model: &str) -> Price {
    config.prices.iter().find(|(m, _)| m == model).map_or_else(
        || config.prices.iter().map(|(_, p)| *p).fold(Price { input: 0.0, output: 0.0 }, |a, p| Price { input: a.input.max(p.input), output: a.output.max(p.output) }),
        |(_, p)| *p,
    )
}

/// The day's cap in neurons.
pub fn daily_cap_neurons(config: &Config) -> f64 {
    config.daily_cap_usd / USD_PER_NEURON
}

/// Neurons for one call.
pub fn neurons(price: Price, usage: Usage) -> f64 {
    (usage.input_tokens as f64 * price.input + usage.output_tokens as f64 * price.output) / 1_000_000.0
}

/// Tokens a chat template adds around each message (role markers, special
/// tokens): generous for every template Workers AI serves.
const TOKENS_PER_MESSAGE: u64 = 16;

/// An upper bound on a prompt's tokens: every tokenizer Workers AI serves is
/// byte-level, so a token covers at least one byte of UTF-8 (an emoji or a CJK
/// character may be one token, never less than a byte), plus each message's
/// template tokens.
pub fn prompt_tokens(messages: &[Message]) -> u64 {
    messages.iter().map(|m| m.content.len() as u64 + TOKENS_PER_MESSAGE).sum()
}

/// An upper bound on one call: its prompt, and `max_tokens` of output.
pub fn call_bound(messages: &[Message], max_tokens: u32) -> Usage {
    Usage { input_tokens: prompt_tokens(messages), output_tokens: u64::from(max_tokens) }
}

/// An upper bound on one chat call to `model`: [`call_bound`], plus the JSON
/// constraint the service may add to the prompt for a model that takes one.
pub fn chat_bound(model: &str, messages: &[Message], schema: &serde_json::Value, max_tokens: u32) -> Usage {
    let bound = call_bound(messages, max_tokens);
    match crate::catalog::constraint_bytes(model, schema) {
        0 => bound,
        bytes => Usage { input_tokens: bound.input_tokens + bytes + TOKENS_PER_MESSAGE, ..bound },
    }
}

/// An embedding call's bound: the text's bytes.
pub fn embed_bound(text: &str) -> Usage {
    Usage { input_tokens: text.len() as u64 + TOKENS_PER_MESSAGE, output_tokens: 0 }
}

/// The most words of a question the corpus never uses that are embedded in
/// the question's own call, to be read by meaning (see [`question_embed_bound`]).
pub const MAX_MEANING_WORDS: usize = 8;

/// The bound of a question's embedding call: the question, and up to
/// [`MAX_MEANING_WORDS`] of its words beside it (their bytes are the
/// question's, each text adds its own template tokens).
pub fn question_embed_bound(question: &str) -> Usage {
    let question_bound = embed_bound(question);
    Usage { input_tokens: 2 * question_bound.input_tokens + MAX_MEANING_WORDS as u64 * TOKENS_PER_MESSAGE, output_tokens: 0 }
}

/// The largest inputs a request can carry, each at its hard bound, written in
/// the characters that take the most bytes once fenced (`<` escapes to `&lt;`,
/// four bytes, in a passage's text, its heading and the judged answer; no
/// character takes more than four).
struct Worst {
    question: String,
    hits: Vec<Hit>,
    answer: String,
    bad_output: String,
}

impl Worst {
    fn new(top_k: usize) -> Worst {
        let wide = |n: usize| "\u{1d11e}".repeat(n);
        // The longest id: a workspace's passage (`w` + its id + `-` + stem + ordinal).
        let hit = |i: usize| Hit {
            id: format!("w{}-{}-{}", "f".repeat(16), "s".repeat(MAX_STEM_CHARS), usize::MAX - i),
            doc: "s".repeat(MAX_STEM_CHARS),
            section: "<".repeat(MAX_HEADING_CHARS),
            text: "<".repeat(MAX_PASSAGE_CHARS),
            score: 1.0,
            lexical_rank: Some(i + 1),
            vector_rank: Some(i + 1),
            origin: crate::api::response::Origin::Upload,
            via: None,
        };
        Worst {
            question: wide(MAX_QUESTION_CHARS),
            hits: (0..top_k).map(hit).collect(),
            answer: wide(prompts::MAX_ANSWER_CHARS),
            bad_output: wide(prompts::MAX_REPAIR_ECHO_CHARS),
        }
    }
}

/// The most one request can cost on the Workers AI engine, in whole neurons
/// (rounded up: reservations add and subtract exactly in D1). Every call the
/// pipeline can make, each at its largest prompt and its `max_tokens`: the
/// question's embedding, the rewrite's call and its query's embedding, a
/// generation and its one repair, the judge's one call and its one repair. Built from the real prompt builders on the largest
/// inputs the request's bounds allow, so it cannot drift from the prompts.
pub fn request_upper_bound(config: &Config) -> f64 {
    bounds_by_model(config).iter().map(|b| b.neurons).sum::<f64>().ceil()
}

/// One model's share of a request's bound: every call it can make, each at
/// its worst case (the README's table of models prints these).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelBound {
    /// `embedding`, or a [`crate::models::Role`]'s name.
    pub role: &'static str,
    pub model: String,
    pub neurons: f64,
}

/// [`request_upper_bound`], model by model: the question's embedding (and,
/// with the rewrite, its query's), the rewrite's one call (no repair), a
/// generation and its one repair, the judge's one call and its one repair.
pub fn bounds_by_model(config: &Config) -> Vec<ModelBound> {
    use crate::models::Role;
    // A prompt carries the top hits and the passages they refer to.
    let worst = Worst::new(config.top_k + config.hop_slots);
    let call = |role: Role, messages: &[Message], schema: &serde_json::Value| {
        let model = config.chat_model(role);
        neurons(price(config, model), chat_bound(model, messages, schema, config.max_tokens))
    };
    let with_repair = |role: Role, messages: Vec<Message>, schema: serde_json::Value, shape: &str| {
        let repair = prompts::repair_messages(messages.clone(), &worst.bad_output, shape);
        call(role, &messages, &schema) + call(role, &repair, &schema)
    };
    let bound = |role: Role, neurons: f64| ModelBound { role: role.as_str(), model: config.chat_model(role).to_string(), neurons };
    // The question with its words read by meaning, and the rewrite's query (at most a question's length).
    let embedding_price = price(config, &config.embedding_model);
    let rewritten = if config.query_rewrite { neurons(embedding_price, embed_bound(&worst.question)) } else { 0.0 };
    let mut bounds = vec![
        ModelBound {
            role: "embedding",
            model: config.embedding_model.clone(),
            neurons: neurons(embedding_price, question_embed_bound(&worst.question)) + rewritten,
        },
        bound(Role::Generator, with_repair(Role::Generator, prompts::answer_messages(&worst.question, &worst.hits), prompts::answer_schema(), prompts::ANSWER_SHAPE)),
        bound(Role::Judge, with_repair(Role::Judge, prompts::judge_messages(&worst.question, &worst.answer, &worst.hits), prompts::judge_schema(), prompts::JUDGE_SHAPE)),
    ];
    if config.query_rewrite {
        bounds.push(bound(Role::Rewrite, call(Role::Rewrite, &prompts::rewrite_messages(&worst.question, &worst.hits), &prompts::rewrite_schema())));
    }
    bounds
}

/// The most one `GET /search` can cost: the query's embedding.
pub fn search_upper_bound(config: &Config) -> f64 {
    neurons(price(config, &config.embedding_model), embed_bound(&Worst::new(0).question)).ceil()
}

/// The bound of embedding `texts` (an ingest or an upload), in neurons.
pub fn embedding_bound(config: &Config, texts: &[String]) -> f64 {
    let price = price(config, &config.embedding_model);
    texts.iter().map(|t| neurons(price, embed_bound(t))).sum::<f64>().ceil()
}

pub fn usd(neurons: f64) -> f64 {
    neurons * USD_PER_NEURON
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neurons_follow_the_price_table() {
        let p = Price { input: 26_668.0, output: 204_805.0 };
        let n = neurons(p, Usage { input_tokens: 1_000_000, output_tokens: 1_000 });
        assert!((n - (26_668.0 + 204.805)).abs() < 1e-6);
        assert!((usd(1000.0) - 0.011).abs() < 1e-12);
    }

    /// The bound is the largest prompt each call can have: any heading, text
    /// or answer of the hard sizes, written in any characters, fits it.
    #[test]
    fn no_prompt_outgrows_its_share_of_the_bound() {
        let config = Config::default();
        let worst = Worst::new(config.top_k + config.hop_slots);
        for fill in ["<", "\"", "\u{1d11e}", "a"] {
            let hits: Vec<Hit> = worst.hits.iter().map(|h| Hit { section: fill.repeat(MAX_HEADING_CHARS), text: fill.repeat(MAX_PASSAGE_CHARS), ..h.clone() }).collect();
            let question = fill.repeat(MAX_QUESTION_CHARS);
            let answer = fill.repeat(prompts::MAX_ANSWER_CHARS);
            let pairs = [
                (prompts::rewrite_messages(&question, &hits), prompts::rewrite_messages(&worst.question, &worst.hits)),
                (prompts::answer_messages(&question, &hits), prompts::answer_messages(&worst.question, &worst.hits)),
                (prompts::judge_messages(&question, &answer, &hits), prompts::judge_messages(&worst.question, &worst.answer, &worst.hits)),
            ];
            for (actual, bound) in pairs {
                assert!(prompt_tokens(&actual) <= prompt_tokens(&bound), "{fill:?}: {} > {}", prompt_tokens(&actual), prompt_tokens(&bound));
            }
        }
    }

    /// The bound grows with everything a request can carry more of.
    #[test]
    fn upper_bound_grows_with_its_inputs() {
        let config = Config::default();
        let bound = request_upper_bound(&config);
        assert!(request_upper_bound(&Config { max_tokens: config.max_tokens * 2, ..config.clone() }) > bound);
        assert!(request_upper_bound(&Config { top_k: config.top_k + 1, ..config.clone() }) > bound);
        assert!(search_upper_bound(&config) < bound);
        assert!(request_upper_bound(&Config { query_rewrite: false, ..config.clone() }) < bound, "the rewrite is counted");
    }

    /// Tokens are bounded by bytes: an emoji question is four times an ASCII one.
    #[test]
    fn prompts_are_bounded_by_their_bytes() {
        let ascii = prompt_tokens(&[Message::user("abcd")]);
        let emoji = prompt_tokens(&[Message::user("\u{1f600}\u{1f600}\u{1f600}\u{1f600}")]);
        assert_eq!(emoji - ascii, 12);
    }

    /// A model that takes a JSON constraint may be billed for it as prompt:
    /// its bound counts the schema; a prompt-only model's does not.
    #[test]
    fn a_json_constraint_is_counted_in_the_bound() {
        let messages = [Message::user("abcd")];
        let schema = serde_json::json!({"type": "object", "properties": {"query": {"type": "string"}}});
        let plain = call_bound(&messages, 64);
        let constrained = chat_bound(crate::config::DEFAULT_JUDGE_MODEL, &messages, &schema, 64);
        assert_eq!(constrained.input_tokens, plain.input_tokens + schema.to_string().len() as u64 + TOKENS_PER_MESSAGE);
        assert_eq!(constrained.output_tokens, plain.output_tokens);
        assert_eq!(chat_bound("@cf/x/unknown", &messages, &schema, 64), plain);
    }

    #[test]
    fn an_unpriced_model_is_charged_the_dearest_price() {
        let config = Config::default();
        let dearest = price(&config, "@cf/unknown");
        assert!(config.prices.iter().all(|(_, p)| p.output <= dearest.output && dearest.output > 0.0));
    }
}
