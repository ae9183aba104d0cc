//! Usage into cost, and the upper bound a request reserves before its first paid
//! call. The bound is true because every generation has a `max_tokens` cap and
//! every prompt's size is bounded by the question, `TOP_K` passages and fixed
//! instructions.

use serde::Serialize;

use crate::corpus::chunk::MAX_PASSAGE_CHARS;
use crate::config::Config;
use crate::api::request::MAX_QUESTION_CHARS;

/// Workers AI bills $0.011 per 1,000 neurons.
pub const USD_PER_NEURON: f64 = 0.011 / 1000.0;

/// Tokens one call used (what its response reports, or its bound if it reports none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Neurons per million tokens for one model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

/// The price of a model. [`Config::from_vars`] refuses a config whose models lack
/// a price, so the fallback (the dearest known price) only guards against a
/// hand-built config: an unpriced model is never free.
pub fn price(config: &Config, model: &str) -> Price {
    config.prices.iter().find(|(m, _)| m == model).map_or_else(
        || config.prices.iter().map(|(_, p)| *p).fold(Price { input: 0.0, output: 0.0 }, |a, p| Price { input: a.input.max(p.input), output: a.output.max(p.output) }),
        |(_, p)| *p,
    )
}

/// Neurons for one call.
pub fn neurons(price: Price, usage: Usage) -> f64 {
    (usage.input_tokens as f64 * price.input + usage.output_tokens as f64 * price.output) / 1_000_000.0
}

/// Fixed instruction text per prompt, in characters (generous).
const INSTRUCTION_CHARS: u64 = 3000;

/// Upper bound on one prompt's tokens: a token is at least one character.
fn prompt_tokens(config: &Config, extra_chars: u64) -> u64 {
    MAX_QUESTION_CHARS as u64 + config.top_k as u64 * MAX_PASSAGE_CHARS as u64 + INSTRUCTION_CHARS + extra_chars
}

/// The most one request can cost on the Workers AI engine: the question's
/// embedding, a generation and its one repair, and the judge's decomposition,
/// its repair and the entailment call, each at its prompt bound and `max_tokens`.
pub fn request_upper_bound(config: &Config) -> f64 {
    // Whole neurons, rounded up: reservations add and subtract exactly in D1.
    let embed = neurons(price(config, &config.embedding_model), Usage { input_tokens: MAX_QUESTION_CHARS as u64, output_tokens: 0 });
    let answer_chars = config.max_tokens as u64 * 8;
    let generation = Usage { input_tokens: prompt_tokens(config, answer_chars), output_tokens: config.max_tokens as u64 };
    let judge = Usage { input_tokens: prompt_tokens(config, answer_chars * 2), output_tokens: config.max_tokens as u64 };
    (embed + 2.0 * neurons(price(config, &config.generation_model), generation) + 3.0 * neurons(price(config, &config.judge_model), judge))
        .ceil()
}

/// The most one `GET /search` can cost: the query's embedding.
pub fn search_upper_bound(config: &Config) -> f64 {
    neurons(price(config, &config.embedding_model), Usage { input_tokens: MAX_QUESTION_CHARS as u64, output_tokens: 0 }).ceil()
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

    /// The bound covers the largest answer the caps allow, so it never undercharges.
    #[test]
    fn upper_bound_covers_long_answers() {
        let config = Config::default();
        let bound = request_upper_bound(&config);
        let biggest_generation = neurons(
            price(&config, &config.generation_model),
            Usage { input_tokens: 8000, output_tokens: config.max_tokens as u64 },
        );
        assert!(bound > biggest_generation * 2.0);
        let bigger = Config { max_tokens: config.max_tokens * 2, ..config.clone() };
        assert!(request_upper_bound(&bigger) > bound);
    }

    #[test]
    fn an_unpriced_model_is_charged_the_dearest_price() {
        let config = Config::default();
        let dearest = price(&config, "@cf/unknown");
        assert!(config.prices.iter().all(|(_, p)| p.output <= dearest.output && dearest.output > 0.0));
    }
}
