//! The `VECTORIZE` binding: `query`, `getByIds`, `upsert`, `deleteByIds`, `describe`. The
//! `worker` crate has no Vectorize API, so this extern type is called on the raw
//! binding object.

use serde::de::DeserializeOwned;
use serde::Serialize;
use worker::js_sys::Promise;
use worker::wasm_bindgen::{self, prelude::*, JsValue};
use worker::Env;

use super::js::{binding, settle, to_js, CallError};

#[wasm_bindgen]
extern "C" {
    /// A Vectorize index binding (or a double with the same methods).
    pub type VectorizeBinding;
    #[wasm_bindgen(method, catch)]
    fn query(this: &VectorizeBinding, vector: &JsValue, options: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = getByIds)]
    fn get_by_ids(this: &VectorizeBinding, ids: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn upsert(this: &VectorizeBinding, vectors: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = deleteByIds)]
    fn delete_by_ids(this: &VectorizeBinding, ids: &JsValue) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn describe(this: &VectorizeBinding) -> Result<Promise, JsValue>;
}

pub fn from_env(env: &Env) -> Option<VectorizeBinding> {
    binding(env, "VECTORIZE")
}

impl VectorizeBinding {
    /// The `top_k` nearest vectors whose metadata passes `filter`, ids and scores only.
    pub async fn nearest<O: DeserializeOwned>(&self, vector: &[f32], top_k: usize, filter: &serde_json::Value) -> Result<O, CallError> {
        let options = serde_json::json!({ "topK": top_k, "returnValues": false, "returnMetadata": "none", "filter": filter });
        settle(self.query(&to_js(&vector)?, &to_js(&options)?)).await
    }

    /// The stored vectors with these ids, their values included.
    pub async fn by_ids<O: DeserializeOwned>(&self, ids: &[String]) -> Result<O, CallError> {
        settle(self.get_by_ids(&to_js(&ids)?)).await
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
