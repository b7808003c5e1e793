//! The Catalog tab: categories in execution order, each followed by its cases, and
//! the cursor over them.

use super::list::{ListPane, ListState};
use testdeck_core::workspace::catalog::{Case, Catalog};

/// One row of the Catalog tab: a category header or a case (indices into the catalog).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatRow {
    Category(usize),
    Case(usize),
}

#[derive(Debug, Default)]
pub struct CatalogTab {
    rows: Vec<CatRow>,
    list: ListState,
}

impl CatalogTab {
    /// The rows: each category, then its cases.
    pub fn rows(&self) -> &[CatRow] {
        &self.rows
    }

    /// The cursor and scroll over the rows.
    pub fn list(&self) -> &ListState {
        &self.list
    }

    /// Keep the cursor inside the rows (after a reload).
    pub fn clamp(&mut self) {
        self.list.clamp_to(self.rows.len());
    }

    /// The rows of `cat`; the cursor stays where it was (inside the new rows).
    pub fn install(&mut self, cat: &Catalog) {
        self.rows.clear();
        for (ci, c) in cat.categories.iter().enumerate() {
            self.rows.push(CatRow::Category(ci));
            for (i, case) in cat.cases.iter().enumerate() {
                if case.category == c.id {
                    self.rows.push(CatRow::Case(i));
                }
            }
        }
        // cases whose category is not declared still show, at the end
        for (i, case) in cat.cases.iter().enumerate() {
            if cat.category(&case.category).is_none() {
                self.rows.push(CatRow::Case(i));
            }
        }
    }

    /// The case under the cursor.
    pub fn selected_case<'a>(&self, cat: &'a Catalog) -> Option<&'a Case> {
        match self.rows.get(self.list.cursor)? {
            CatRow::Case(i) => cat.cases.get(*i),
            CatRow::Category(_) => None,
        }
    }

    /// The ids of the cases under the cursor: the case, or every case of the category.
    pub fn selected_ids(&self, cat: &Catalog) -> Vec<String> {
        match self.rows.get(self.list.cursor) {
            Some(CatRow::Case(i)) => vec![cat.cases[*i].id.clone()],
            Some(CatRow::Category(i)) => {
                let id = &cat.categories[*i].id;
                cat.cases
                    .iter()
                    .filter(|c| &c.category == id)
                    .map(|c| c.id.clone())
                    .collect()
            }
            None => Vec::new(),
        }
    }

    /// What `r` launches here: the case, or the category (by its id).
    pub fn launch_id(&self, cat: &Catalog) -> Option<String> {
        match self.rows.get(self.list.cursor)? {
            CatRow::Case(i) => Some(cat.cases[*i].id.clone()),
            CatRow::Category(i) => Some(cat.categories[*i].id.clone()),
        }
    }

    /// A launch's case `id` started in tab `tab` and the live pane shows it: a
    /// cursor on a case (Catalog tab) moves to it; on a category it stays.
    pub fn follow_launch(&mut self, tab: super::Tab, cat: Option<&Catalog>, id: &str) {
        if let Some(cat) =
            cat.filter(|c| tab == super::Tab::Catalog && self.selected_case(c).is_some())
        {
            self.jump_to(cat, id);
        }
    }

    /// Put the cursor on case `id`.
    pub fn jump_to(&mut self, cat: &Catalog, id: &str) -> bool {
        let Some(pos) = self
            .rows
            .iter()
            .position(|r| matches!(r, CatRow::Case(i) if cat.cases[*i].id == id))
        else {
            return false;
        };
        self.list.cursor = pos;
        true
    }
}

impl ListPane for CatalogTab {
    fn list_mut(&mut self) -> &mut ListState {
        &mut self.list
    }

    fn rows(&self) -> usize {
        self.rows.len()
    }
}
