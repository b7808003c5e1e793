//! Rules on ids, categories and lifecycle: what names a case and where it belongs.

use super::{CaseOut, Cx, Out};
use crate::catalog::{Case, Catalog, Lifecycle, Pos, load};
use std::collections::HashMap;

/// `id_pattern` compiled so that the whole id must match, anchored or not;
/// the error is the last line of the regex error.
pub(super) fn id_regex(cat: &Catalog) -> Option<Result<regex::Regex, String>> {
    let p = cat.id_pattern.as_deref()?;
    Some(regex::Regex::new(&format!("^(?:{p})$")).map_err(|e| {
        e.to_string()
            .lines()
            .last()
            .unwrap_or_default()
            .trim_start_matches("error: ")
            .to_owned()
    }))
}

/// `category-unknown`: a case file whose category is not in catalog.yaml.
pub(super) fn category_unknown(cx: &Cx, out: &mut Out) {
    let cat = cx.cat;
    if !cat.parsed {
        return;
    }
    for file in cat.files.iter().filter(|f| f.parsed) {
        let known = file
            .category
            .as_deref()
            .is_some_and(|c| cat.category(c).is_some());
        if !known {
            let msg = match &file.category {
                Some(c) => format!("category {c} is not in catalog.yaml categories"),
                None => format!(
                    "{} matches no category of catalog.yaml (the file name is the category id lowercased)",
                    file.path.rsplit('/').next().unwrap_or(&file.path)
                ),
            };
            out.emit(&file.path, file.pos, "category-unknown", msg);
        }
    }
}

/// `category-duplicate`: a category id declared twice.
pub(super) fn category_duplicate(cx: &Cx, out: &mut Out) {
    let mut ids: HashMap<&str, Pos> = HashMap::new();
    for c in &cx.cat.categories {
        if ids.insert(&c.id, c.pos).is_some() {
            out.emit(
                &cx.cat.file,
                c.pos,
                "category-duplicate",
                format!("category {} is declared twice", c.id),
            );
        }
    }
}

/// `id-pattern-regex`: `id_pattern` is not a regular expression.
pub(super) fn id_pattern_regex(cx: &Cx, out: &mut Out) {
    if let (Some(Err(e)), Some(p)) = (&cx.id_re, cx.cat.id_pattern.as_deref()) {
        out.emit(
            &cx.cat.file,
            cx.cat.at("id_pattern"),
            "id-pattern-regex",
            format!("id_pattern {p:?} is not a valid regular expression: {e}"),
        );
    }
}

/// `id-pattern`: the id does not match `id_pattern`.
pub(super) fn id_pattern(cx: &Cx, c: &Case, out: &mut CaseOut) {
    if let (Some(Ok(re)), false) = (&cx.id_re, c.id.is_empty()) {
        if !re.is_match(&c.id) {
            out.emit(
                "id",
                "id-pattern",
                format!(
                    "id does not match id_pattern {:?}",
                    cx.cat.id_pattern.as_deref().unwrap_or_default()
                ),
            );
        }
    }
}

/// `id-duplicate`: a case id used before (the first use is named).
pub(super) fn id_duplicate(cx: &Cx, out: &mut Out) {
    let mut seen: HashMap<&str, &Case> = HashMap::new();
    for c in cx.cat.cases.iter().filter(|c| !c.id.is_empty()) {
        if let Some(first) = seen.get(c.id.as_str()) {
            out.emit(
                &c.file,
                c.at("id"),
                "id-duplicate",
                format!(
                    "case {}: the id is already used at {}:{}",
                    c.id, first.file, first.pos.line
                ),
            );
        } else {
            seen.insert(&c.id, c);
        }
    }
}

/// `category-mismatch`: the case's category is not its file's.
pub(super) fn category_mismatch(cx: &Cx, c: &Case, out: &mut CaseOut) {
    let file = cx.cat.files.iter().find(|x| x.path == c.file);
    let file_cat = file.and_then(|x| x.category.as_deref());
    let stem = load::file_stem(&c.file);
    let matches_file =
        file_cat.map_or_else(|| c.category.to_lowercase() == stem, |fc| fc == c.category);
    if !matches_file {
        out.emit(
            "category",
            "category-mismatch",
            format!(
                "category {} is not the file's category {}",
                c.category,
                file_cat.unwrap_or(&stem)
            ),
        );
    }
}

/// `pending-notes` (a warning): a pending case says why in notes.
pub(super) fn pending_notes(_: &Cx, c: &Case, out: &mut CaseOut) {
    if c.lifecycle == Some(Lifecycle::Pending) && c.notes.is_empty() {
        out.emit(
            "lifecycle",
            "pending-notes",
            "a pending case says why in notes",
        );
    }
}
