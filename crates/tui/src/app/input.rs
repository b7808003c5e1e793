//! Typed input: what a key no binding took does to a line of text — the
//! finder's query, a typed authorization, a verdict's note, the filter lines,
//! the caseId `a` adds. The line's owner applies it to its own text (the
//! overlay stack to the finder's and the prompts', the Runs tab, the live pane
//! and the case being added to theirs); the App hands it on.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One edit of a line of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// A character typed at its end.
    Push(char),
    /// Backspace: its last character erased.
    Pop,
    /// The whole line cleared (`Ctrl-U`, or the line closed).
    Clear,
}

impl Edit {
    /// What key `k` types: a character without Ctrl or Alt, or Backspace.
    pub fn of(k: KeyEvent) -> Option<Edit> {
        match k.code {
            KeyCode::Char(c)
                if !k
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                Some(Edit::Push(c))
            }
            KeyCode::Backspace => Some(Edit::Pop),
            _ => None,
        }
    }

    /// Apply it to `s`.
    pub fn apply(self, s: &mut String) {
        match self {
            Edit::Push(c) => s.push(c),
            Edit::Pop => {
                s.pop();
            }
            Edit::Clear => s.clear(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Edit;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    #[test]
    fn a_key_types_a_character_or_erases_one_and_ctrl_or_alt_types_nothing() {
        let key = |c, m| Edit::of(KeyEvent::new(c, m));
        assert_eq!(
            key(KeyCode::Char('x'), KeyModifiers::SHIFT),
            Some(Edit::Push('x'))
        );
        assert_eq!(key(KeyCode::Char('x'), KeyModifiers::CONTROL), None);
        assert_eq!(key(KeyCode::Char('x'), KeyModifiers::ALT), None);
        assert_eq!(key(KeyCode::Backspace, KeyModifiers::NONE), Some(Edit::Pop));
        assert_eq!(key(KeyCode::Enter, KeyModifiers::NONE), None);
        let mut s = String::from("ab");
        Edit::Push('c').apply(&mut s);
        assert_eq!(s, "abc");
        Edit::Pop.apply(&mut s);
        Edit::Pop.apply(&mut s);
        assert_eq!(s, "a");
        Edit::Clear.apply(&mut s);
        Edit::Pop.apply(&mut s);
        assert_eq!(s, "");
    }
}
