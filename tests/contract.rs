//! The exact requests the worker sends each Workers AI model, and the outputs
//! it reads back, for every configured model and every model of the catalog.
//! Natively this checks what is built and read; with `CONTRACT_OUT` set it
//! writes them as JSON, which tests/contract/models.test.mjs type-checks
//! against `@cloudflare/workers-types` (each model's published input and
//! output types, `tsc --noEmit`).

use groundgate::api::response::Origin;
use groundgate::catalog::{self, Kind, MODELS};
use groundgate::config::Config;
use groundgate::models::{Message, Role};
use groundgate::stages::prompts;
use groundgate::stages::retrieve::Hit;
use serde_json::{json, Value};

fn hits() -> Vec<Hit> {
    vec![Hit {
        id: "pricing-02".into(),
        doc: "pricing".into(),
        section: "Dedicated Desk Plan".into(),
        text: "The Dedicated Desk plan costs $450 per month.".into(),
        score: 1.0,
        lexical_rank: Some(1),
        vector_rank: Some(1),
        origin: Origin::Corpus,
        via: None,
    }]
}

/// Every chat request `role` makes: its call and its repair (which carries an
/// assistant turn), or the rewrite's one call.
fn conversations(role: Role) -> (Vec<Vec<Message>>, Value) {
    let question = "How much does the Dedicated Desk plan cost?";
    let answer = "The Dedicated Desk plan costs $450 per month.";
    let repaired = |messages: Vec<Message>, shape: &str| vec![messages.clone(), prompts::repair_messages(messages, "Sure! {\"answer\": \"the", shape)];
    match role {
        Role::Generator => (repaired(prompts::answer_messages(question, &hits()), prompts::ANSWER_SHAPE), prompts::answer_schema()),
        Role::Judge => (repaired(prompts::judge_messages(question, answer, &hits()), prompts::JUDGE_SHAPE), prompts::judge_schema()),
        Role::Rewrite => (vec![prompts::rewrite_messages(question, &hits())], prompts::rewrite_schema()),
    }
}

/// The roles a config's chat models play, and each catalog model in every
/// role (any chat model may be configured for any role).
fn chat_calls(config: &Config) -> Vec<(String, Role)> {
    let roles = [Role::Generator, Role::Judge, Role::Rewrite];
    let configured = roles.iter().map(|&r| (config.chat_model(r).to_string(), r));
    let catalog = MODELS.iter().filter(|s| matches!(s.kind, Kind::Chat { .. })).flat_map(|s| roles.iter().map(|&r| (s.model.to_string(), r)));
    let mut calls: Vec<(String, Role)> = configured.chain(catalog).collect();
    calls.sort_by_key(|(m, r)| (m.clone(), r.as_str()));
    calls.dedup();
    calls
}

/// The records the type check reads: `{model, what, role?, body}`, `what` one
/// of `input`, `options` (the third argument of `env.AI.run`) or `output`.
fn records() -> Vec<Value> {
    let config = Config { ai_gateway_id: Some("groundgate".into()), ..Config::default() };
    let mut records = Vec::new();
    let embedding_models = std::iter::once(config.embedding_model.clone())
        .chain(MODELS.iter().filter(|s| s.kind == Kind::Embedding).map(|s| s.model.to_string()));
    for model in embedding_models.collect::<std::collections::BTreeSet<_>>() {
        let texts = vec!["How much does the Dedicated Desk plan cost?".to_string()];
        records.push(json!({"model": model, "what": "input", "body": catalog::EmbedInput { text: &texts }}));
        records.push(json!({"model": model, "what": "options", "body": catalog::run_options(&config, None)}));
        records.push(json!({"model": model, "what": "output", "body": {"shape": [1, 3], "data": [[0.1, 0.2, 0.3]]}}));
    }
    for (model, role) in chat_calls(&config) {
        let (conversations, schema) = conversations(role);
        for messages in &conversations {
            let input = catalog::chat_input(&model, role, messages, &schema, config.max_tokens);
            records.push(json!({"model": model, "what": "input", "role": role.as_str(), "body": input}));
        }
        records.push(json!({"model": model, "what": "options", "role": role.as_str(), "body": catalog::run_options(&config, Some(role))}));
    }
    for spec in MODELS.iter().filter(|s| matches!(s.kind, Kind::Chat { .. })) {
        let usage = json!({"prompt_tokens": 120, "completion_tokens": 9, "total_tokens": 129});
        records.push(json!({"model": spec.model, "what": "output", "body": {"response": "{\"query\": \"desk price\"}", "usage": usage}}));
    }
    records
}

#[test]
fn every_model_is_sent_what_its_schema_has_and_read_as_it_answers() {
    let records = records();
    for record in &records {
        let (model, body) = (record["model"].as_str().unwrap(), &record["body"]);
        match record["what"].as_str().unwrap() {
            "input" if record.get("role").is_some() => {
                let fields = ["response_format", "guided_json"].map(|f| body.get(f).is_some());
                let expected = match catalog::spec(model).map(|s| s.kind) {
                    Some(Kind::Chat { json, .. }) => json.as_str(),
                    _ => unreachable!("only chat models are asked to chat"),
                };
                let sent = match fields {
                    [true, false] => "response_format",
                    [false, true] => "guided_json",
                    _ => panic!("{model}: one JSON field, not {fields:?}"),
                };
                assert_eq!(sent, expected, "{model}");
            }
            "output" if catalog::spec(model).is_some_and(|s| s.kind != Kind::Embedding) => {
                let reply = catalog::chat_reply(body.clone()).unwrap();
                assert_eq!((reply.text.as_str(), reply.usage.input_tokens), ("{\"query\": \"desk price\"}", Some(120)));
            }
            _ => {}
        }
    }
    let defaults = Config::default();
    for model in [&defaults.embedding_model, &defaults.generation_model, &defaults.judge_model, &defaults.rewrite_model] {
        assert!(records.iter().any(|r| r["model"] == model.as_str() && r["what"] == "input"), "{model} has a request");
    }
    if let Ok(path) = std::env::var("CONTRACT_OUT") {
        std::fs::write(&path, serde_json::to_string_pretty(&records).unwrap()).unwrap();
    }
}
