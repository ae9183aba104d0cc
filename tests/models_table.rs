//! The table of supported models in `docs/how-it-works.md` is printed from
//! the code: the catalog (JSON field, family), the price table and the cost
//! bound. If the document and the code disagree, this fails and prints the
//! table to paste.

use groundgate::catalog::{Kind, MODELS};
use groundgate::config::Config;
use groundgate::cost::{self, bounds_by_model, price, USD_PER_NEURON};
use groundgate::models::Role;

fn per_million(neurons: f64) -> String {
    format!("{neurons:.0} (${:.3})", neurons * USD_PER_NEURON)
}

/// One row per role and catalog model in it: the bound is that model's share
/// of a request's bound with the other roles at their defaults.
fn table() -> String {
    let defaults = Config::default();
    let mut rows = vec![
        "| role | model | family | JSON constraint | seed | neurons (USD) per M input tokens | per M output tokens | bound per request, neurons |".to_string(),
        "|---|---|---|---|---|---:|---:|---:|".to_string(),
    ];
    let roles: [(&str, Option<Role>); 4] = [("embedding", None), ("generator", Some(Role::Generator)), ("judge", Some(Role::Judge)), ("rewrite", Some(Role::Rewrite))];
    for (name, role) in roles {
        for spec in MODELS.iter().filter(|s| matches!((s.kind, role), (Kind::Embedding, None) | (Kind::Chat { .. }, Some(_)))) {
            let config = match role {
                None => Config { embedding_model: spec.model.into(), ..defaults.clone() },
                Some(Role::Generator) => Config { generation_model: spec.model.into(), ..defaults.clone() },
                Some(Role::Judge) => Config { judge_model: spec.model.into(), ..defaults.clone() },
                Some(Role::Rewrite) => Config { rewrite_model: spec.model.into(), ..defaults.clone() },
            };
            let bound = bounds_by_model(&config).into_iter().find(|b| b.role == name).expect("every role is bounded").neurons;
            let (json, seed) = match spec.kind {
                Kind::Embedding => ("—", "—"),
                Kind::Chat { json, seed } => (json.as_str(), if seed { "yes" } else { "no" }),
            };
            let p = price(&config, spec.model);
            let default_model = role.map_or(defaults.embedding_model.as_str(), |r| defaults.chat_model(r));
            let default = if spec.model == default_model { " (default)" } else { "" };
            rows.push(format!(
                "| {name} | `{}`{default} | {} | {json} | {seed} | {} | {} | {bound:.1} |",
                spec.model,
                spec.family,
                per_million(p.input),
                if matches!(spec.kind, Kind::Embedding) { "—".to_string() } else { per_million(p.output) },
            ));
        }
    }
    rows.push(String::new());
    rows.push(format!("Whole request, default models: **{:.0} neurons** (${:.4}).", cost::request_upper_bound(&defaults), cost::usd(cost::request_upper_bound(&defaults))));
    rows.join("\n")
}

/// Generator and judge pairs of the catalog, and whether each is two families.
fn pairs() -> String {
    let chat: Vec<_> = MODELS.iter().filter(|s| matches!(s.kind, Kind::Chat { .. })).collect();
    let mut rows = vec!["| generator | judge | families |".to_string(), "|---|---|---|".to_string()];
    for g in &chat {
        for j in &chat {
            let verdict = if g.family == j.family { format!("same ({}): the judge grades its own family", g.family) } else { format!("different ({} / {})", g.family, j.family) };
            rows.push(format!("| `{}` | `{}` | {verdict} |", g.model, j.model));
        }
    }
    rows.join("\n")
}

#[test]
fn the_docs_list_every_supported_model_as_the_code_has_it() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/how-it-works.md")).unwrap();
    for (what, expected) in [("models", table()), ("pairs", pairs())] {
        assert!(readme.contains(&expected), "docs/how-it-works.md's table of {what} differs from the code; it is:\n\n{expected}\n");
    }
}
