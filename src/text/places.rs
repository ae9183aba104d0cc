//! Place names and their English forms: "Ireland" and "Irish", "Europe"
//! and "European" name one place. The forms come from a maintained gazetteer
//! (`places.tsv`, written by `scripts/places-table`), so "the Irish courts"
//! names what "the courts of Ireland" names, and a question about "Europe"
//! is one about a corpus's "European Union".

use std::sync::OnceLock;

/// One place a line, its forms tab-separated; `#` lines are comments.
const TABLE: &str = include_str!("places.tsv");

/// Each place's forms, as written in [`TABLE`].
fn places() -> &'static [Vec<&'static str>] {
    static PLACES: OnceLock<Vec<Vec<&'static str>>> = OnceLock::new();
    PLACES.get_or_init(|| TABLE.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).map(|l| l.split('\t').collect()).collect())
}

/// The other forms of the place `name` is a form of (any case), none when
/// it is no place's.
pub fn other_forms(name: &str) -> Vec<&'static str> {
    places()
        .iter()
        .filter(|forms| forms.iter().any(|f| f.eq_ignore_ascii_case(name)))
        .flat_map(|forms| forms.iter().copied().filter(|f| !f.eq_ignore_ascii_case(name)))
        .collect()
}

/// The one-word places a text names, each as its own term with the term of
/// another one-word form ("Europe": `europ` with `european`): a corpus that
/// writes either form names the place.
pub fn forms(text: &str) -> Vec<(String, String)> {
    let one_term = |word: &str| Some(super::terms(word)).filter(|t| t.len() == 1).and_then(|mut t| t.pop());
    super::names(text)
        .iter()
        .filter_map(|name| Some((name, one_term(name)?)))
        .flat_map(|(name, own)| other_forms(name).into_iter().filter_map(one_term).map(move |form| (own.clone(), form)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_country_and_its_demonym_are_one_place() {
        assert_eq!(other_forms("Irish"), ["Ireland"]);
        assert_eq!(other_forms("ireland"), ["Irish"]);
        assert_eq!(other_forms("Europe"), ["European"]);
        assert!(other_forms("Kellsbridge").is_empty());
    }

    #[test]
    fn a_named_place_is_looked_up_in_its_other_forms() {
        use crate::text::terms;
        assert_eq!(forms("Our data is in Europe."), [(terms("Europe").remove(0), terms("European").remove(0))]);
        assert!(forms("Our data is in Kellsbridge.").is_empty());
    }
}
