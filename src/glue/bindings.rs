//! The `AI` and `VECTORIZE` bindings as small extern types over the raw binding
//! objects. The `worker` crate has no Vectorize API, and its typed `Ai` accessor
//! rejects service bindings (the test doubles), so both are called directly.
//! Inputs cross as JSON-compatible plain objects (via `JSON.parse`), never as
//! `Map`s, which Vectorize would silently ignore.

use serde::de::DeserializeOwned;
use serde::Serialize;
use worker::js_sys::{self, Promise};
use worker::wasm_bindgen::{self, prelude::*, JsValue};
use worker::wasm_bindgen_futures::JsFuture;
use worker::Env;

#[wasm_bindgen]
extern "C" {
    /// The Workers AI binding (or a `WorkerEntrypoint` with the same `run`).
    pub type AiBinding;
    #[wasm_bindgen(method, catch)]
    fn run(this: &AiBinding, model: &str, input: &JsValue) -> Result<Promise, JsValue>;

    /// A Vectorize index binding (or a double with the same methods).
    pub type VectorizeBinding;
    #[wasm_bindgen(method, catch)]
    fn query(this: &VectorizeBinding, vector: &JsValue, options: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn upsert(this: &VectorizeBinding, vectors: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = deleteByIds)]
    fn delete_by_ids(this: &VectorizeBinding, ids: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn describe(this: &VectorizeBinding) -> Result<Promise, JsValue>;
}

/// A binding call's failure: the JS error's message.
#[derive(Debug)]
pub struct CallError(pub String);

impl From<JsValue> for CallError {
    fn from(value: JsValue) -> Self {
        let message = js_sys::Reflect::get(&value, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .or_else(|| value.as_string())
            .unwrap_or_else(|| "unknown error".into());
        CallError(message)
    }
}

/// The binding object named `name`, if the environment has one.
fn binding<T: JsCast>(env: &Env, name: &str) -> Option<T> {
    let value = js_sys::Reflect::get(env, &JsValue::from(name)).ok()?;
    (!value.is_undefined()).then(|| value.unchecked_into())
}

pub fn ai(env: &Env) -> Option<AiBinding> {
    binding(env, "AI")
}

pub fn vectorize(env: &Env) -> Option<VectorizeBinding> {
    binding(env, "VECTORIZE")
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, CallError> {
    let text = serde_json::to_string(value).map_err(|e| CallError(format!("encode: {e}")))?;
    js_sys::JSON::parse(&text).map_err(CallError::from)
}

async fn settle<T: DeserializeOwned>(promise: Result<Promise, JsValue>) -> Result<T, CallError> {
    let value = JsFuture::from(promise?).await?;
    let text: String = js_sys::JSON::stringify(&value).map_err(CallError::from)?.into();
    serde_json::from_str(&text).map_err(|e| CallError(format!("unexpected answer shape: {e}")))
}

impl AiBinding {
    /// `env.AI.run(model, input)`, JSON in and out.
    pub async fn call<I: Serialize, O: DeserializeOwned>(&self, model: &str, input: &I) -> Result<O, CallError> {
        settle(self.run(model, &to_js(input)?)).await
    }
}

impl VectorizeBinding {
    pub async fn nearest<O: DeserializeOwned>(&self, vector: &[f32], top_k: usize) -> Result<O, CallError> {
        let options = serde_json::json!({ "topK": top_k, "returnValues": false, "returnMetadata": "none" });
        settle(self.query(&to_js(&vector)?, &to_js(&options)?)).await
    }

    pub async fn put<V: Serialize>(&self, vectors: &[V]) -> Result<serde_json::Value, CallError> {
        settle(self.upsert(&to_js(&vectors)?)).await
    }

    pub async fn remove(&self, ids: &[String]) -> Result<serde_json::Value, CallError> {
        settle(self.delete_by_ids(&to_js(&ids)?)).await
    }

    pub async fn info<O: DeserializeOwned>(&self) -> Result<O, CallError> {
        settle(self.describe()).await
    }
}
