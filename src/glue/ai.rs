//! The `AI` binding: `run(model, input, options)`. The `worker` crate's typed `Ai`
//! accessor rejects service bindings (the test doubles), so this extern type is
//! called on the raw binding object.

use serde::de::DeserializeOwned;
use serde::Serialize;
use worker::js_sys::Promise;
use worker::wasm_bindgen::{self, prelude::*, JsValue};
use worker::Env;

use super::js::{binding, settle, to_js, CallError};

#[wasm_bindgen]
extern "C" {
    /// The Workers AI binding (or a `WorkerEntrypoint` with the same `run`).
    pub type AiBinding;
    #[wasm_bindgen(method, catch)]
    fn run(this: &AiBinding, model: &str, input: &JsValue, options: &JsValue) -> Result<Promise, JsValue>;
}

pub fn from_env(env: &Env) -> Option<AiBinding> {
    binding(env, "AI")
}

impl AiBinding {
    /// `env.AI.run(model, input, options)`, JSON in and out; no options is
    /// `undefined`, the binding's default.
    pub async fn call<I: Serialize, O: DeserializeOwned>(&self, model: &str, input: &I, options: Option<&serde_json::Value>) -> Result<O, CallError> {
        let options = options.map_or(Ok(JsValue::UNDEFINED), to_js)?;
        settle(self.run(model, &to_js(input)?, &options)).await
    }
}
