//! Metering the paid calls: every model call goes through here, so each is
//! counted and charged the usage it reports (or, where it reports none, its
//! bound), and a chat whose output does not parse gets one repair request.

use serde_json::Value;

use crate::cost;
use crate::models::Usage;
use crate::models::{Message, ModelError, Models, Role};
use crate::ports::{Clock, Corpus};
use crate::stages::pipeline::Pipeline;
use crate::stages::prompts;
use crate::stages::respond::Findings;

/// Paid calls made so far and what they cost.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Meter {
    pub calls: u32,
    pub neurons: f64,
}

pub(super) enum ChatFailure {
    Model(ModelError),
    Invalid,
}

impl<C: Corpus, K: Clock, M: Models> Pipeline<'_, C, K, M> {
    /// One chat call whose output must parse, with one repair attempt.
    #[allow(clippy::too_many_arguments)] // One private helper; the parts are all distinct.
    pub(super) async fn chat_json<T>(
        &self,
        models: &M,
        role: Role,
        messages: Vec<Message>,
        schema: &Value,
        shape: &str,
        parse: impl Fn(&str) -> Option<T>,
        f: &mut Findings<'_>,
    ) -> Result<T, ChatFailure> {
        let reply = self.chat(models, role, &messages, schema, f).await.map_err(ChatFailure::Model)?;
        if let Some(parsed) = parse(&reply) {
            return Ok(parsed);
        }
        let repair = prompts::repair_messages(messages, &reply, shape);
        let again = self.chat(models, role, &repair, schema, f).await.map_err(ChatFailure::Model)?;
        parse(&again).ok_or(ChatFailure::Invalid)
    }

    pub(super) async fn chat(&self, models: &M, role: Role, messages: &[Message], schema: &Value, f: &mut Findings<'_>) -> Result<String, ModelError> {
        let model = self.config.chat_model(role);
        let bound = cost::chat_bound(model, messages, schema, self.config.max_tokens);
        let result = models.chat(role, messages, schema, self.config.max_tokens).await;
        // A call that failed may still have been billed, and a field it does
        // not report may still be billed: charge the bound for what is unknown.
        let usage = result.as_ref().ok().map_or(bound, |r| r.usage.or_bound(bound));
        self.charge(&mut f.meter, model, usage);
        result.map(|r| r.text)
    }

    /// Embeds the question (and, in the same call, its `words` to be read by
    /// meaning) and asks the index for the question's nearest passages;
    /// returns them and the words' vectors.
    pub(super) async fn nearest(&self, models: &M, question: &str, words: &[(String, String)], k: usize, meter: &mut Meter) -> Result<(Vec<(String, f64)>, Vec<Vec<f32>>), ModelError> {
        let bound = cost::question_embed_bound(question);
        let texts: Vec<String> = std::iter::once(question.to_string()).chain(words.iter().map(|(_, word)| word.clone())).collect();
        let embedded = models.embed(&texts).await;
        let usage = embedded.as_ref().ok().map_or(bound, |e| e.usage.or_bound(bound));
        self.charge(meter, &self.config.embedding_model, usage);
        let mut vectors = embedded?.vectors.into_iter();
        let vector = vectors.next().ok_or_else(|| ModelError::Failed("no embedding returned".into()))?;
        if vector.len() != self.config.embedding_dimensions {
            return Err(ModelError::Failed(format!(
                "embedding has {} dimensions, EMBEDDING_DIMENSIONS is {}",
                vector.len(),
                self.config.embedding_dimensions
            )));
        }
        Ok((models.nearest(&self.scope, &vector, k).await?, vectors.collect()))
    }

    pub(super) fn charge(&self, meter: &mut Meter, model: &str, usage: Usage) {
        meter.calls += 1;
        meter.neurons += cost::neurons(cost::price(self.config, model), usage);
    }
}
