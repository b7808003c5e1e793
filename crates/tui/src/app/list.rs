//! The one position type of every list and scrolled pane: a cursor and the first
//! row shown, moved, clamped and clicked the same way everywhere.

use super::super::action::Command;

/// How many rows a cursor key moves a list whose page is `page` rows; `None` for
/// any other key (the far ends are half of `isize`'s range: `step` saturates).
pub fn rows_for(c: Command, page: isize) -> Option<isize> {
    match c {
        Command::MoveDown => Some(1),
        Command::MoveUp => Some(-1),
        Command::PageDown => Some(page),
        Command::PageUp => Some(-page),
        Command::GoTop => Some(isize::MIN / 2),
        Command::GoBottom => Some(isize::MAX / 2),
        _ => None,
    }
}

/// A list of rows under one cursor: the Tests, Catalog and Runs tabs. The keys,
/// the wheel, a click and the fit to the pane's height are the same for each.
pub trait ListPane {
    /// The cursor and the first row shown.
    fn list_mut(&mut self) -> &mut ListState;

    /// How many rows are shown (the cursor's range).
    fn rows(&self) -> usize;

    /// Rows the pane draws above its list (the tests tree's column header).
    fn header_rows(&self) -> usize {
        0
    }

    /// The cursor keys (`page` rows a page); whether `c` was one.
    fn handle(&mut self, c: Command, page: isize) -> bool {
        rows_for(c, page).map(|d| self.step(d)).is_some()
    }

    /// Move the cursor by `d` rows (a key, the wheel).
    fn step(&mut self, d: isize) {
        let n = self.rows();
        self.list_mut().step(d, n);
    }

    /// A click on row `row` of the pane's inside (its header rows included):
    /// the cursor on the list's row there, if there is one.
    fn click(&mut self, row: usize) {
        let n = self.rows();
        if let Some(r) = row.checked_sub(self.header_rows()) {
            self.list_mut().click(r, n);
        }
    }

    /// Keep the cursor in range and in view of a pane `height` rows inside.
    fn fit(&mut self, height: usize) {
        let n = self.rows();
        let h = height.saturating_sub(self.header_rows());
        self.list_mut().fit(n, h);
    }
}

/// A cursor into `len` rows and the first row shown of a window `height` rows tall.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListState {
    pub cursor: usize,
    pub offset: usize,
}

impl ListState {
    /// Move the cursor by `d` rows, staying inside `0..len` (0 when empty).
    pub fn step(&mut self, d: isize, len: usize) {
        self.cursor = if len == 0 {
            0
        } else {
            (self.cursor as isize)
                .saturating_add(d)
                .clamp(0, len as isize - 1) as usize
        };
    }

    /// Keep the cursor inside `len` rows.
    pub fn clamp_to(&mut self, len: usize) {
        self.cursor = self.cursor.min(len.saturating_sub(1));
    }

    /// Scroll so the cursor is inside a window of `height` rows.
    pub fn scroll(&mut self, height: usize) {
        self.offset = scroll_to(self.offset, self.cursor, height);
    }

    /// The one scroll rule of every pane: the cursor inside `len` rows, the window
    /// of `height` rows never past the end (a grown window shows the first rows
    /// again instead of blank space under the last), and the cursor in view.
    pub fn fit(&mut self, len: usize, height: usize) {
        self.clamp_to(len);
        self.offset = self.offset.min(len.saturating_sub(height.max(1)));
        self.scroll(height);
    }

    /// The rows of `rows` shown in a window of `height` rows, each with its
    /// position among all of them (to compare with the cursor).
    pub fn visible<I: IntoIterator>(
        &self,
        rows: I,
        height: usize,
    ) -> impl Iterator<Item = (usize, I::Item)> + use<I> {
        rows.into_iter().enumerate().skip(self.offset).take(height)
    }

    /// Rows below the window of `height` rows over `len` rows.
    pub fn below(&self, len: usize, height: usize) -> usize {
        len.saturating_sub(self.offset + height)
    }

    /// The cursor on the last of `len` rows.
    pub fn bottom(&mut self, len: usize) {
        self.cursor = len.saturating_sub(1);
    }

    /// A click on the `row`-th row shown: the cursor goes there when a row is there.
    pub fn click(&mut self, row: usize, len: usize) -> bool {
        let i = self.offset + row;
        let hit = i < len;
        if hit {
            self.cursor = i;
        }
        hit
    }

    /// Back to the first row.
    pub fn reset(&mut self) {
        *self = ListState::default();
    }
}

/// The first row to show so that `cursor` is inside a window of `height` rows.
pub fn scroll_to(offset: usize, cursor: usize, height: usize) -> usize {
    let h = height.max(1);
    if cursor < offset {
        cursor
    } else if cursor >= offset + h {
        cursor + 1 - h
    } else {
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_stay_inside_and_the_window_follows_the_cursor() {
        let mut l = ListState::default();
        l.step(5, 0);
        assert_eq!(l.cursor, 0, "an empty list has its cursor at 0");
        l.step(isize::MAX / 2, 10);
        assert_eq!(l.cursor, 9);
        l.scroll(4);
        assert_eq!(l.offset, 6);
        l.step(-8, 10);
        l.scroll(4);
        assert_eq!((l.cursor, l.offset), (1, 1));
        assert!(l.click(2, 10));
        assert_eq!(l.cursor, 3);
        assert!(!l.click(20, 10), "a click below the last row moves nothing");
        assert_eq!(l.cursor, 3);
        l.clamp_to(2);
        assert_eq!(l.cursor, 1);
    }

    #[test]
    fn the_visible_rows_are_the_window_with_their_positions() {
        let rows = ["a", "b", "c", "d", "e"];
        let l = ListState {
            cursor: 3,
            offset: 2,
        };
        let shown: Vec<(usize, &&str)> = l.visible(&rows, 2).collect();
        assert_eq!(shown, [(2, &"c"), (3, &"d")]);
        assert_eq!(
            l.visible(&rows, 10).count(),
            3,
            "the window ends with the rows"
        );
    }

    /// A window that grows (a terminal resized from 10 to 40 rows) shows the first
    /// rows again instead of the last few above blank space.
    #[test]
    fn the_window_never_ends_past_the_last_row() {
        let mut l = ListState::default();
        l.step(20, 25);
        l.fit(25, 8);
        assert_eq!((l.cursor, l.offset), (20, 13));
        assert_eq!(l.below(25, 8), 4);
        l.fit(25, 38);
        assert_eq!((l.cursor, l.offset), (20, 0), "all 25 rows fit in 38");
        assert_eq!(l.below(25, 38), 0);
        l.offset = 20;
        l.fit(25, 10);
        assert_eq!(l.offset, 15, "clamped at the end");
        l.fit(3, 10);
        assert_eq!(
            (l.cursor, l.offset),
            (2, 0),
            "the list shrank under the cursor"
        );
    }
}
