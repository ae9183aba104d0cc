//! Literal values (paths, commands, field values) as documents write them,
//! read apart from their typesetting: a Markdown code mark or emphasis, or a
//! shell line continuation, changes how a literal looks, not what it is. And
//! a documentation template (`/var/log/foo/*.log`, "`/usr/lib/`package-name")
//! is the literal with a placeholder the reader fills with their own value.

/// The metasyntactic variables of programming English, the names a manual
/// uses for "any value here" (the Jargon File's "metasyntactic variable";
/// RFC 3092).
const METASYNTACTIC: &[&str] = &["foo", "bar", "baz", "qux", "quux"];

/// `text` with its typesetting taken out and its spaces squashed: code marks
/// ("`os`-any" is "os-any"), emphasis asterisks around a word
/// ("*overwriter-version*"), and a backslash that continues a shell line
/// ("disappear \ overwriter" is one command). A glob's asterisk
/// (`/var/log/foo/*.log`) stays.
pub fn literal_form(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).map(|b| chars[b]);
        let after = chars.get(i + 1).copied();
        let bare = |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';' | '.' | ':'));
        let wordy = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        let emphasis = c == '*' && ((bare(before) && wordy(after)) || (wordy(before) && bare(after)));
        let continuation = c == '\\' && after.is_none_or(char::is_whitespace);
        if c != '`' && !emphasis && !continuation {
            out.push(c);
        }
    }
    super::squash_whitespace(&out)
}

/// The placeholders a passage writes: the metasyntactic variables it uses,
/// a word set right after a code span, as typeset templates set the part to
/// fill ("`/usr/lib/`package-name"), and an emphasised word
/// ("*overwriter-version*").
pub fn placeholders(text: &str) -> Vec<String> {
    let is_part = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    let mut found: Vec<String> = Vec::new();
    let mut add = |word: &str| {
        if word.chars().any(char::is_alphabetic) && !found.iter().any(|f| f == word) {
            found.push(word.to_string());
        }
    };
    for (at, _) in text.match_indices('`').skip(1).step_by(2) {
        add(&text[at + 1..].chars().take_while(|&c| is_part(c)).collect::<String>());
    }
    for span in text.split('*').skip(1).step_by(2) {
        if !span.is_empty() && span.chars().all(is_part) {
            add(span);
        }
    }
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| METASYNTACTIC.contains(&w.to_lowercase().as_str())) {
        add(word);
    }
    found
}

/// The values a question writes that could fill a template: its words and
/// the parts of its paths, with the marks around them trimmed
/// ("/var/log/mydaemon/" gives "var", "log", "mydaemon").
pub fn given_values(question: &str) -> Vec<&str> {
    let mut values: Vec<&str> = question
        .split(|c: char| c.is_whitespace() || c == '/' || c == '`')
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.chars().count() > 1 && w.chars().any(char::is_alphanumeric))
        .collect();
    values.dedup();
    values
}

/// What some texts write as literals, read with a question whose values may
/// fill their templates: [`literal_form`], [`placeholders`] and
/// [`fills_template`] together, and the pieces ([`code_spans`]) the texts
/// give to join to the asker's values ([`joins_given`]).
pub struct Written<'q> {
    forms: Vec<String>,
    holes: Vec<String>,
    pieces: Vec<String>,
    given: Vec<&'q str>,
}

impl<'q> Written<'q> {
    pub fn new<'t>(texts: impl IntoIterator<Item = &'t str>, question: &'q str) -> Written<'q> {
        let texts: Vec<&str> = texts.into_iter().collect();
        Written {
            forms: texts.iter().map(|t| literal_form(t)).collect(),
            holes: texts.iter().flat_map(|t| placeholders(t)).collect(),
            pieces: texts.iter().flat_map(|t| code_spans(t)).map(super::squash_whitespace).collect(),
            given: given_values(question),
        }
    }

    /// Whether one of the texts writes `span`, as it is, as its template filled with the asker's value,
    /// as the asker's value joined to a piece a text sets apart, or as a line composed of such words.
    /// A value the question itself writes ("my package foo-doc") is the asker's: given, not claimed.
    pub fn writes(&self, span: &str) -> bool {
        let span = super::squash_whitespace(span);
        span.split_whitespace().all(|word| piece_of(word, &self.given))
            || self.forms.iter().any(|w| w.contains(&span))
            || fills_template(&span, &self.given, &self.holes, &self.forms)
            || joins_given(&span, &self.given, &self.pieces)
            || self.composes(&span)
    }

    /// A literal of several words, each one the asker's or a word the texts
    /// set as code, joined by marks of syntax: `Rules-Requires-Root: no`
    /// where the texts write the field `Rules-Requires-Root` and its value
    /// `no`, `Source: frob (1.4-2)` from the field `Source` and the asker's
    /// values. A field line or a command is composed of its words; each word
    /// must be written as code, not only in prose, so a common word ("use")
    /// stands in no code it is not written in.
    fn composes(&self, span: &str) -> bool {
        let bare = |word: &str| word.trim_matches(|c: char| matches!(c, '(' | ')' | ',' | ':' | ';' | '"' | '\'')).to_string();
        let coded: Vec<String> = self.pieces.iter().flat_map(|p| p.split_whitespace().map(bare)).collect();
        let words: Vec<String> = span.split_whitespace().map(bare).collect();
        words.len() > 1 && words.iter().all(|w| !w.chars().any(char::is_alphanumeric) || piece_of(w, &self.given) || coded.contains(w))
    }
}

/// Whether `word` is one of `given`, or a whole piece of one, set off by
/// its marks: "libfrob" and "2.4" are the asker's when they wrote
/// `libfrob-2.4.so`. What the asker wrote, or split out of what they
/// wrote, is given, not claimed.
pub fn piece_of(word: &str, given: &[&str]) -> bool {
    // A decimal point joins its digits: "2" is no piece of "2.4".
    let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
    let bounded = |value: &str, at: usize| {
        let (head, tail) = (&value[..at], &value[at + word.len()..]);
        let mut before = head.chars().rev();
        let mut after = tail.chars();
        let (b, a) = (before.next(), after.next());
        let decimal = |mark: Option<char>, next: Option<char>, end: Option<char>| mark == Some('.') && digit(next) && digit(end);
        !b.is_some_and(char::is_alphanumeric)
            && !a.is_some_and(char::is_alphanumeric)
            && !decimal(b, before.next(), word.chars().next())
            && !decimal(a, after.next(), word.chars().next_back())
    };
    !word.is_empty() && given.iter().any(|value| value.match_indices(word).any(|(at, _)| bounded(value, at)))
}

/// The code spans of a text: what it sets between backticks.
pub fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).filter(|span| !span.trim().is_empty()).collect()
}

/// Whether `span` is one of `given` with a piece a text sets apart as code
/// joined to its end or its start: "append `~` to the version" worked out
/// for the asker's version 2.3-2 is `2.3-2~`. Only a whole piece joins a
/// whole value, and the piece is no word of its own (a mark, a suffix such
/// as `-dev`), so a value spelled in another's place is not worked out.
pub fn joins_given(span: &str, given: &[&str], pieces: &[String]) -> bool {
    let joinable = |piece: &str| piece.starts_with(|c: char| !c.is_alphanumeric()) || piece.ends_with(|c: char| !c.is_alphanumeric());
    given.iter().filter(|g| g.len() < span.len()).any(|value| {
        let rest = [span.strip_prefix(value), span.strip_suffix(value)];
        rest.into_iter().flatten().any(|piece| joinable(piece) && pieces.iter().any(|p| p == piece))
    })
}

/// Whether `span` is a template of `written` filled with one of `given`: some
/// whole part of the span that the question gave, put back as one of the
/// `holes`, is written (`/var/log/mydaemon/*.log` from `/var/log/foo/*.log`
/// when the asker named `mydaemon`). A value nobody gave fills nothing.
pub fn fills_template(span: &str, given: &[&str], holes: &[String], written: &[String]) -> bool {
    let bounded = |at: usize, len: usize| {
        let before = span[..at].chars().next_back();
        let after = span[at + len..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    };
    given.iter().any(|value| {
        span.match_indices(value).filter(|(at, _)| bounded(*at, value.len())).any(|(at, _)| {
            holes.iter().any(|hole| {
                let filled_back = format!("{}{hole}{}", &span[..at], &span[at + value.len()..]);
                written.iter().any(|w| w.contains(&filled_back))
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typesetting_is_not_part_of_a_literal() {
        assert_eq!(literal_form("`os`-any or any-`cpu`"), "os-any or any-cpu");
        assert_eq!(literal_form("`disappearer's-postrm` disappear overwriter *overwriter-version*"), "disappearer's-postrm disappear overwriter overwriter-version");
        assert_eq!(literal_form("postrm disappear \\\n        overwriter overwriter-version"), "postrm disappear overwriter overwriter-version");
        // A glob and an escaped character are the literal's own.
        assert_eq!(literal_form("/var/log/foo/*.log {"), "/var/log/foo/*.log {");
        assert_eq!(literal_form("s/a\\.b/c/"), "s/a\\.b/c/");
    }

    #[test]
    fn the_askers_value_joined_to_a_piece_the_text_gives_is_written() {
        let written = Written::new(["Append `~` to the end of the version that includes the Debian revision."], "Is my upload 2.3-2 the version to write?");
        assert!(written.writes("2.3-2~"));
        assert!(!written.writes("2.3-2+b1"), "a piece no text gives");
        assert!(!written.writes("2.3-3~"), "a value nobody gave");
        // A piece that is a word of its own is a value, not a suffix to join.
        let names = Written::new(["Ship it in `foo` or in `bar`."], "Can libfoo go there?");
        assert!(!names.writes("libfoobar"));
    }

    #[test]
    fn a_line_composed_of_code_words_is_written() {
        let manual = ["The field `Rules-Requires-Root` takes `no`, `binary-targets`, or keywords. The `Source` field names the source package."];
        let written = Written::new(manual, "After a binNMU frob is 1.4-2+b1 and the source 1.4-2.");
        assert!(written.writes("Rules-Requires-Root: no"));
        assert!(written.writes("Source: frob (1.4-2)"));
        // A word the texts write only in prose, or nowhere, composes nothing.
        assert!(!written.writes("Rules-Requires-Root: keywords"));
        assert!(!written.writes("Rules-Requires-Root: yes"));
        assert!(!written.writes("Source: bar (1.4-2)"));
    }

    #[test]
    fn a_piece_of_the_askers_value_is_given() {
        let given = given_values("My library's SONAME is libfrob-2.4.so; what goes in the shlibs line?");
        assert!(piece_of("libfrob", &given) && piece_of("2.4", &given) && piece_of("libfrob-2.4.so", &given));
        assert!(!piece_of("2", &given) && !piece_of("4", &given), "a decimal point joins its digits");
        assert!(!piece_of("frob", &given) && !piece_of("2.5", &given));
    }

    #[test]
    fn a_passage_marks_its_placeholders() {
        assert_eq!(placeholders("preferably under `/usr/lib/`package-name. Or `x` then"), ["package-name"]);
        assert_eq!(placeholders("- `old-postrm` upgrade *new-version*"), ["new-version"]);
        assert_eq!(placeholders("    /var/log/foo/*.log {"), ["foo"]);
        assert!(placeholders("Use `/usr/lib` for it.").is_empty());
    }

    #[test]
    fn a_template_filled_with_the_askers_value_is_written() {
        let written = vec![literal_form("rotate them: /var/log/foo/*.log { weekly }"), literal_form("preferably under `/usr/lib/`package-name.")];
        let holes = ["foo".to_string(), "package-name".to_string()];
        let given = given_values("My daemon logs under /var/log/mydaemon/; and libfoo3 needs a helper?");
        assert!(given.contains(&"mydaemon") && given.contains(&"libfoo3"));
        assert!(fills_template("/var/log/mydaemon/*.log", &given, &holes, &written));
        assert!(fills_template("/usr/lib/libfoo3", &given, &holes, &written));
        // A value the question never gave, or another directory, fills nothing.
        assert!(!fills_template("/var/log/otherd/*.log", &given, &holes, &written));
        assert!(!fills_template("/usr/share/libfoo3", &given, &holes, &written));
        // Only a whole part is a value: "mydaemon" inside "mydaemon2" is not the asker's.
        assert!(!fills_template("/var/log/mydaemon2/*.log", &given, &holes, &written));
    }
}
