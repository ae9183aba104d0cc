//! The Workers AI models this worker knows, and the exact input each is sent.
//!
//! Every model has its own input schema: the generator takes `response_format`,
//! the default judge takes `guided_json` and rejects `response_format`. The
//! table below is read off `@cloudflare/workers-types` (the version pinned in
//! package.json, `AiModels[model]["inputs"]`), and the contract test
//! (tests/contract) type-checks every request built here against those types,
//! so a field a model does not have fails the build, not production.

use serde::Serialize;
use serde_json::Value;

use crate::config::Config;
use crate::models::{Message, ModelError, Reply, Reported, Role};

/// How a chat model takes a JSON constraint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonField {
    /// `response_format: {type: "json_schema", json_schema}` (Workers AI's JSON mode).
    ResponseFormat,
    /// `guided_json: <the schema>`.
    GuidedJson,
    /// Neither: the prompt names the shape, the output is parsed leniently
    /// and repaired once (what every unknown model gets).
    Prompt,
}

impl JsonField {
    /// The input field's name, as the README's table shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            JsonField::ResponseFormat => "response_format",
            JsonField::GuidedJson => "guided_json",
            JsonField::Prompt => "none (prompt)",
        }
    }
}

/// What a model is for, and what its input schema has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `{text: string[]}` in, `{data: number[][]}` out.
    Embedding,
    /// `{messages, max_tokens, temperature, …}` in, `{response, usage}` out.
    Chat { json: JsonField, seed: bool },
}

/// One known model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub model: &'static str,
    /// Who trained it: a judge of the generator's own family grades itself.
    pub family: &'static str,
    pub kind: Kind,
}

/// The models tested by the contract test. Each is priced in `config`'s
/// default table (an unpriced model is refused at startup).
pub const MODELS: &[Spec] = &[
    Spec { model: crate::config::DEFAULT_EMBEDDING_MODEL, family: "BAAI", kind: Kind::Embedding },
    // `Ai_Cf_Meta_Llama_3_3_70B_Instruct_Fp8_Fast_Messages`: response_format, seed.
    Spec { model: crate::config::DEFAULT_GENERATION_MODEL, family: "Meta Llama", kind: Kind::Chat { json: JsonField::ResponseFormat, seed: true } },
    // `Ai_Cf_Mistralai_Mistral_Small_3_1_24B_Instruct_Messages`: guided_json, seed; no response_format.
    Spec { model: crate::config::DEFAULT_JUDGE_MODEL, family: "Mistral", kind: Kind::Chat { json: JsonField::GuidedJson, seed: true } },
    // `BaseAiTextGeneration` (`AiTextGenerationInput`): response_format, seed.
    Spec { model: crate::config::DEFAULT_REWRITE_MODEL, family: "Meta Llama", kind: Kind::Chat { json: JsonField::ResponseFormat, seed: true } },
];

/// The known model of that name.
pub fn spec(model: &str) -> Option<&'static Spec> {
    MODELS.iter().find(|s| s.model == model)
}

/// How `model` is sent a chat request: its table entry, or for a model not
/// in the table the one request every text model accepts (no JSON field, no
/// seed), with a warning in `/health` (see [`warnings`]).
fn chat_kind(model: &str) -> (JsonField, bool) {
    match spec(model).map(|s| s.kind) {
        Some(Kind::Chat { json, seed }) => (json, seed),
        _ => (JsonField::Prompt, false),
    }
}

/// The judge and the rewrite sample greedily with this seed where the model
/// takes one, so the same question gets the same verdict on every request.
pub const SEED: u32 = 23;

impl Role {
    /// The judge and the rewrite decide, so they do not sample; the generator
    /// writes prose, at a low temperature that keeps it to the passages.
    pub fn temperature(self) -> f64 {
        match self {
            Role::Generator => 0.2,
            Role::Judge | Role::Rewrite => 0.0,
        }
    }

    fn seeded(self) -> bool {
        matches!(self, Role::Judge | Role::Rewrite)
    }
}

/// A chat request's body, exactly as `env.AI.run(model, body)` is sent it.
#[derive(Debug, Serialize)]
pub struct ChatInput<'a> {
    messages: &'a [Message],
    max_tokens: u32,
    temperature: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    guided_json: Option<&'a Value>,
}

/// The request `role` sends to `model`, its JSON constraint in the field the
/// model's schema has.
pub fn chat_input<'a>(model: &str, role: Role, messages: &'a [Message], schema: &'a Value, max_tokens: u32) -> ChatInput<'a> {
    let (json, seed) = chat_kind(model);
    ChatInput {
        messages,
        max_tokens,
        temperature: role.temperature(),
        seed: (seed && role.seeded()).then_some(SEED),
        response_format: (json == JsonField::ResponseFormat).then(|| serde_json::json!({ "type": "json_schema", "json_schema": schema })),
        guided_json: (json == JsonField::GuidedJson).then_some(schema),
    }
}

/// The tokens a model's JSON constraint may add to its prompt: a service that
/// enforces a schema may put it into the prompt it runs (and bill it), so the
/// bound counts its bytes; a prompt-only model is sent none.
pub fn constraint_bytes(model: &str, schema: &Value) -> u64 {
    match chat_kind(model).0 {
        JsonField::Prompt => 0,
        JsonField::ResponseFormat | JsonField::GuidedJson => schema.to_string().len() as u64,
    }
}

/// An embedding request's body.
#[derive(Debug, Serialize)]
pub struct EmbedInput<'a> {
    pub text: &'a [String],
}

/// A chat model's output into its reply. The published output types give
/// `{response: string, usage?}` or a bare string (Llama 3.3); in JSON mode the
/// service returns `response` as the parsed object (the JSON-mode page's own
/// example), which is read back as its JSON text.
pub fn chat_reply(output: Value) -> Result<Reply, ModelError> {
    let mut output = match output {
        Value::String(text) => return Ok(Reply { text, usage: Reported::default() }),
        Value::Object(fields) => fields,
        other => return Err(ModelError::Failed(format!("the model answered {other}, not an object"))),
    };
    let text = match output.remove("response") {
        Some(Value::String(text)) => text,
        Some(Value::Null) | None => return Err(ModelError::Failed("no `response` in the model's answer".into())),
        Some(other) => other.to_string(),
    };
    let count = |usage: Option<&Value>, field: &str| usage.and_then(|u| u.get(field)).and_then(Value::as_u64);
    let usage = output.get("usage");
    Ok(Reply { text, usage: Reported { input_tokens: count(usage, "prompt_tokens"), output_tokens: count(usage, "completion_tokens") } })
}

/// The third argument of `env.AI.run`: through the AI Gateway when one is
/// configured. The judge's call skips the gateway's response cache, so a
/// verdict cached for one request is never reused for another.
pub fn run_options(config: &Config, role: Option<Role>) -> Option<Value> {
    let id = config.ai_gateway_id.as_deref()?;
    let mut gateway = serde_json::json!({ "id": id });
    if role == Some(Role::Judge) {
        gateway["skipCache"] = Value::Bool(true);
    }
    Some(serde_json::json!({ "gateway": gateway }))
}

/// What `/health` warns of: each configured model the table does not know
/// (sent no JSON constraint and no seed), or knows for another kind of work.
pub fn warnings(config: &Config) -> Vec<String> {
    let chat = |role: Role| (config.chat_model(role), role.as_str());
    let mut roles = vec![chat(Role::Generator), chat(Role::Judge)];
    if config.query_rewrite {
        roles.push(chat(Role::Rewrite));
    }
    let mut warnings = Vec::new();
    match spec(&config.embedding_model).map(|s| s.kind) {
        Some(Kind::Embedding) => {}
        Some(Kind::Chat { .. }) => warnings.push(format!("embedding model {} is a chat model", config.embedding_model)),
        None => warnings.push(format!("embedding model {} is not a known model: its input is untested", config.embedding_model)),
    }
    for (model, role) in roles {
        match spec(model).map(|s| s.kind) {
            Some(Kind::Chat { .. }) => {}
            Some(Kind::Embedding) => warnings.push(format!("{role} model {model} is an embedding model")),
            None => warnings.push(format!("{role} model {model} is not a known model: sent no JSON constraint and no seed, its output is parsed from the prompt's shape and repaired once")),
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(model: &str, role: Role) -> Value {
        let messages = [Message::system("s"), Message::user("u")];
        let schema = json!({"type": "object"});
        serde_json::to_value(chat_input(model, role, &messages, &schema, 64)).unwrap()
    }

    fn fields(body: &Value) -> Vec<&str> {
        body.as_object().unwrap().keys().map(String::as_str).collect()
    }

    /// The judge's schema goes in `guided_json` (its model has no
    /// `response_format`), the generator's in `response_format`.
    #[test]
    fn each_model_gets_its_own_json_field() {
        let judge = body(crate::config::DEFAULT_JUDGE_MODEL, Role::Judge);
        assert_eq!(fields(&judge), ["guided_json", "max_tokens", "messages", "seed", "temperature"]);
        assert_eq!(judge["guided_json"], json!({"type": "object"}));
        let generator = body(crate::config::DEFAULT_GENERATION_MODEL, Role::Generator);
        assert_eq!(fields(&generator), ["max_tokens", "messages", "response_format", "temperature"]);
        assert_eq!(generator["response_format"], json!({"type": "json_schema", "json_schema": {"type": "object"}}));
    }

    /// Deciding calls are greedy and seeded; the generator samples a little.
    #[test]
    fn the_judge_and_the_rewrite_are_deterministic() {
        for role in [Role::Judge, Role::Rewrite] {
            let b = body(crate::config::DEFAULT_REWRITE_MODEL, role);
            assert_eq!((b["temperature"].as_f64(), b["seed"].as_u64()), (Some(0.0), Some(u64::from(SEED))));
        }
        let g = body(crate::config::DEFAULT_GENERATION_MODEL, Role::Generator);
        assert_eq!((g["temperature"].as_f64(), g.get("seed")), (Some(0.2), None));
    }

    /// A model not in the table gets the request every text model takes, and a warning.
    #[test]
    fn an_unknown_model_relies_on_the_prompt_and_is_warned_of() {
        assert_eq!(fields(&body("@cf/x/new-judge", Role::Judge)), ["max_tokens", "messages", "temperature"]);
        assert_eq!(constraint_bytes("@cf/x/new-judge", &json!({"type": "object"})), 0);
        assert!(warnings(&Config::default()).is_empty());
        let config = Config { judge_model: "@cf/x/new-judge".into(), rewrite_model: crate::config::DEFAULT_EMBEDDING_MODEL.into(), ..Config::default() };
        let warned = warnings(&config);
        assert_eq!(warned.len(), 2, "{warned:?}");
        assert!(warned[0].starts_with("judge model @cf/x/new-judge is not a known model"));
        assert!(warned[1].contains("is an embedding model"));
    }

    /// Both output shapes of the published types, and JSON mode's object.
    #[test]
    fn replies_are_read_as_string_object_or_bare_string() {
        let usage = json!({"prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14});
        let text = chat_reply(json!({"response": "{\"query\": \"desk\"}", "usage": usage})).unwrap();
        assert_eq!(text.text, "{\"query\": \"desk\"}");
        assert_eq!(text.usage, Reported { input_tokens: Some(10), output_tokens: Some(4) });
        let object = chat_reply(json!({"response": {"query": "desk"}, "usage": usage})).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&object.text).unwrap(), json!({"query": "desk"}));
        let bare = chat_reply(json!("{\"query\": \"desk\"}")).unwrap();
        assert_eq!((bare.text.as_str(), bare.usage), ("{\"query\": \"desk\"}", Reported::default()));
        assert!(chat_reply(json!({"usage": usage})).is_err());
        assert!(chat_reply(json!([1])).is_err());
    }

    /// Through the gateway only when one is named; the judge skips its cache.
    #[test]
    fn gateway_options_follow_the_config() {
        assert_eq!(run_options(&Config::default(), Some(Role::Judge)), None);
        let config = Config { ai_gateway_id: Some("gg".into()), ..Config::default() };
        assert_eq!(run_options(&config, Some(Role::Judge)), Some(json!({"gateway": {"id": "gg", "skipCache": true}})));
        assert_eq!(run_options(&config, Some(Role::Generator)), Some(json!({"gateway": {"id": "gg"}})));
        assert_eq!(run_options(&config, None), Some(json!({"gateway": {"id": "gg"}})));
    }
}
