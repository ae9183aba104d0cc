//! Calling JS binding objects with JSON in and out. Inputs cross as plain
//! objects (via `JSON.parse`), never as `Map`s, which Vectorize would silently
//! ignore; outputs come back through `JSON.stringify` into serde types.

use serde::de::DeserializeOwned;
use serde::Serialize;
use worker::js_sys::{self, Promise};
use worker::wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;
use worker::Env;

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

/// The raw binding object named `name`, if the environment has one. No type
/// check: a real binding and a service-bound double are both accepted.
pub fn binding<T: JsCast>(env: &Env, name: &str) -> Option<T> {
    let value = js_sys::Reflect::get(env, &JsValue::from(name)).ok()?;
    (!value.is_undefined()).then(|| value.unchecked_into())
}

pub fn to_js<T: Serialize>(value: &T) -> Result<JsValue, CallError> {
    let text = serde_json::to_string(value).map_err(|e| CallError(format!("encode: {e}")))?;
    js_sys::JSON::parse(&text).map_err(CallError::from)
}

/// Awaits a binding call's promise (or RPC thenable) and decodes its answer.
pub async fn settle<T: DeserializeOwned>(promise: Result<Promise, JsValue>) -> Result<T, CallError> {
    let value = JsFuture::from(promise?).await?;
    let text: String = js_sys::JSON::stringify(&value).map_err(CallError::from)?.into();
    serde_json::from_str(&text).map_err(|e| CallError(format!("unexpected answer shape: {e}")))
}
