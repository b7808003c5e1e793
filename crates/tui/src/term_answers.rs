//! The terminal's answers to the startup graphics query told apart from the keys typed
//! meanwhile: in the bytes read while the query is pending ([`split`], [`keys`]), and in
//! crossterm's events once its reader has stdin ([`LateAnswers`]: a kitty answer that
//! comes after the wait reaches crossterm as the keys Alt+`_` … Alt+`\`). An answer is
//! never a key.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

const ESC: u8 = 0x1b;
/// The longest answer kept while its end has not come (more is not an answer of ours).
const MAX_ANSWER: usize = 4096;

/// The bytes read while the query is pending, parted: the answers (string sequences —
/// APC, DCS, OSC — and the CSI reports `ESC [ ? … c` and `ESC [ … t`), what the
/// person typed, and an unfinished sequence at the end to read again with the next bytes.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Split {
    pub answers: Vec<u8>,
    pub typed: Vec<u8>,
    pub unfinished: Vec<u8>,
}

impl Split {
    /// Only a lone ESC is unfinished: once nothing more comes, it is the Esc key.
    pub(crate) fn lone_esc(unfinished: &[u8]) -> bool {
        unfinished == [ESC]
    }
}

/// Part `bytes` as [`Split`] says.
pub(crate) fn split(bytes: &[u8]) -> Split {
    let mut out = Split::default();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != ESC {
            out.typed.push(bytes[i]);
            i += 1;
            continue;
        }
        match sequence(&bytes[i..]) {
            Seq::Answer(n) => {
                out.answers.extend_from_slice(&bytes[i..i + n]);
                i += n;
            }
            Seq::Typed(n) => {
                out.typed.extend_from_slice(&bytes[i..i + n]);
                i += n;
            }
            Seq::Unfinished if bytes.len() - i <= MAX_ANSWER => {
                out.unfinished.extend_from_slice(&bytes[i..]);
                break;
            }
            // too long to be an answer of ours: dropped, never typed
            Seq::Unfinished => break,
        }
    }
    out
}

enum Seq {
    Answer(usize),
    Typed(usize),
    Unfinished,
}

/// What the escape sequence at the start of `b` (`b[0]` is ESC) is, and its length.
fn sequence(b: &[u8]) -> Seq {
    match b.get(1) {
        // a lone ESC at the end of what was read: the Esc key, or an answer cut by the
        // read; the next bytes say, or a quiet moment ([`Split::lone_esc`])
        None => Seq::Unfinished,
        // APC, DCS, OSC: a string up to ST (`ESC \`) or BEL
        Some(b'_' | b'P' | b']') => {
            let mut j = 2;
            while j < b.len() {
                if b[j] == 0x07 {
                    return Seq::Answer(j + 1);
                }
                if b[j] == ESC && b.get(j + 1) == Some(&b'\\') {
                    return Seq::Answer(j + 2);
                }
                j += 1;
            }
            Seq::Unfinished
        }
        Some(b'[') => {
            // parameters and intermediates, then the final byte
            let mut j = 2;
            while j < b.len() && (0x20..0x40).contains(&b[j]) {
                j += 1;
            }
            let Some(&fin) = b.get(j) else {
                return Seq::Unfinished;
            };
            let report = (fin == b'c' && b.get(2) == Some(&b'?')) || fin == b't';
            if report {
                Seq::Answer(j + 1)
            } else {
                Seq::Typed(j + 1)
            }
        }
        // the Esc key, then what the second ESC starts
        Some(&ESC) => Seq::Typed(1),
        Some(b'O') if b.len() == 2 => Seq::Unfinished,
        Some(b'O') => Seq::Typed(3),
        Some(_) => Seq::Typed(2),
    }
}

/// The keys in what the person typed while the query was pending (crossterm's reader
/// does not have stdin yet): characters, Enter, Tab, Backspace, Esc, Ctrl and Alt with
/// a character, the arrows, Home, End, Page Up/Down, Delete; other sequences are dropped.
pub(crate) fn keys(typed: &[u8]) -> Vec<Event> {
    let text = String::from_utf8_lossy(typed);
    let mut out = Vec::new();
    let mut it = text.chars().peekable();
    let key = |code: KeyCode, m: KeyModifiers| Event::Key(KeyEvent::new(code, m));
    while let Some(c) = it.next() {
        let ev = match c {
            '\u{1b}' => match it.next() {
                None | Some('\u{1b}') => Some(key(KeyCode::Esc, KeyModifiers::NONE)),
                Some('[') => {
                    let mut params = String::new();
                    let mut fin = None;
                    for c in it.by_ref() {
                        if ('\u{20}'..'\u{40}').contains(&c) {
                            params.push(c);
                        } else {
                            fin = Some(c);
                            break;
                        }
                    }
                    fin.and_then(|f| csi_key(&params, f))
                        .map(|k| key(k, KeyModifiers::NONE))
                }
                Some('O') => it
                    .next()
                    .and_then(|f| csi_key("", f))
                    .map(|k| key(k, KeyModifiers::NONE)),
                Some(c) => plain(c).map(|(k, m)| key(k, m | KeyModifiers::ALT)),
            },
            c => plain(c).map(|(k, m)| key(k, m)),
        };
        out.extend(ev);
    }
    out
}

/// One byte or character as crossterm reads it.
fn plain(c: char) -> Option<(KeyCode, KeyModifiers)> {
    Some(match c {
        '\r' | '\n' => (KeyCode::Enter, KeyModifiers::NONE),
        '\t' => (KeyCode::Tab, KeyModifiers::NONE),
        '\u{7f}' => (KeyCode::Backspace, KeyModifiers::NONE),
        '\0' => (KeyCode::Char(' '), KeyModifiers::CONTROL),
        '\u{1}'..='\u{1a}' => (
            KeyCode::Char(char::from(b'a' + (c as u8 - 1))),
            KeyModifiers::CONTROL,
        ),
        '\u{1c}'..='\u{1f}' => (
            KeyCode::Char(char::from(b'4' + (c as u8 - 0x1c))),
            KeyModifiers::CONTROL,
        ),
        c if c.is_control() => return None,
        c if c.is_uppercase() => (KeyCode::Char(c), KeyModifiers::SHIFT),
        c => (KeyCode::Char(c), KeyModifiers::NONE),
    })
}

fn csi_key(params: &str, fin: char) -> Option<KeyCode> {
    Some(match (params, fin) {
        ("", 'A') => KeyCode::Up,
        ("", 'B') => KeyCode::Down,
        ("", 'C') => KeyCode::Right,
        ("", 'D') => KeyCode::Left,
        ("", 'H') | ("1" | "7", '~') => KeyCode::Home,
        ("", 'F') | ("4" | "8", '~') => KeyCode::End,
        ("", 'Z') => KeyCode::BackTab,
        ("3", '~') => KeyCode::Delete,
        ("5", '~') => KeyCode::PageUp,
        ("6", '~') => KeyCode::PageDown,
        _ => return None,
    })
}

/// How long held keys wait for the rest of what may be an answer: a terminal writes
/// its answer at once, a person does not type Alt+`_` then `Gi=…` within it.
pub(crate) const HOLD: std::time::Duration = std::time::Duration::from_millis(60);

/// crossterm's events with the answers that came after the wait taken out: an APC
/// (`ESC _ … ESC \`) reaches crossterm as Alt+`_`, its characters, then Alt+`\`. From an
/// Alt+`_` on the events are held; a run of characters ended by Alt+`\` whose text starts
/// with `G` (a kitty graphics answer) is dropped, anything else lets the held keys go.
#[derive(Debug, Default)]
pub(crate) struct LateAnswers {
    held: Vec<Event>,
    text: String,
}

/// What one event gave: the events to pass on, and whether it ended a kitty answer
/// that says the terminal draws kitty pictures.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Taken {
    pub pass: Vec<Event>,
    pub kitty: bool,
}

impl LateAnswers {
    /// Keys are held, waiting for the rest of what may be an answer (at most [`HOLD`]).
    pub(crate) fn holding(&self) -> bool {
        !self.held.is_empty()
    }

    /// The held keys, as they came: nothing more came in time.
    pub(crate) fn release(&mut self) -> Vec<Event> {
        self.text.clear();
        std::mem::take(&mut self.held)
    }

    pub(crate) fn take(&mut self, ev: Event) -> Taken {
        let Event::Key(k) = &ev else {
            let mut pass = self.release();
            pass.push(ev);
            return Taken { pass, kitty: false };
        };
        let alt = k.modifiers == KeyModifiers::ALT;
        if self.held.is_empty() {
            if alt && k.code == KeyCode::Char('_') {
                self.held.push(ev);
                return Taken::default();
            }
            return Taken {
                pass: vec![ev],
                kitty: false,
            };
        }
        match k.code {
            KeyCode::Char('\\') if alt && self.text.starts_with('G') => {
                let kitty = self.text.starts_with("Gi=31;OK");
                self.release();
                Taken {
                    pass: Vec::new(),
                    kitty,
                }
            }
            KeyCode::Char(c)
                if (k.modifiers - KeyModifiers::SHIFT).is_empty()
                    && self.text.len() < MAX_ANSWER =>
            {
                self.text.push(c);
                self.held.push(ev);
                Taken::default()
            }
            _ => {
                let mut pass = self.release();
                let next = self.take(ev);
                pass.extend(next.pass);
                Taken {
                    pass,
                    kitty: next.kitty,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(c: char) -> Event {
        let m = if c.is_uppercase() {
            KeyModifiers::SHIFT
        } else {
            KeyModifiers::NONE
        };
        Event::Key(KeyEvent::new(KeyCode::Char(c), m))
    }

    fn alt(c: char) -> Event {
        Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT))
    }

    #[test]
    fn the_answers_are_parted_from_what_was_typed() {
        let kitty = b"\x1b_Gi=31;OK\x1b\\\x1b[6;20;9t\x1b[?62;22c";
        let mut read = b"j".to_vec();
        read.extend_from_slice(kitty);
        read.extend_from_slice(b"/ab\x1b[A\r\x1b");
        let s = split(&read);
        assert_eq!(s.answers, kitty);
        assert_eq!(s.typed, b"j/ab\x1b[A\r");
        // the Esc key, or an answer's first byte: the next read says
        assert!(Split::lone_esc(&s.unfinished));
        let esc = split(b"\x1b\x1b_Gi=31;OK\x1b\\");
        assert_eq!(esc.typed, b"\x1b");
        assert_eq!(esc.answers, b"\x1b_Gi=31;OK\x1b\\");
        assert_eq!(
            keys(&s.typed),
            vec![
                ch('j'),
                ch('/'),
                ch('a'),
                ch('b'),
                Event::Key(KeyCode::Up.into()),
                Event::Key(KeyCode::Enter.into()),
            ]
        );
        // an answer cut by the read waits for its end
        let s = split(b"q\x1b_Gi=31;O");
        assert_eq!(s.typed, b"q");
        assert_eq!(s.unfinished, b"\x1b_Gi=31;O");
        let s = split(b"\x1b[?62;2");
        assert_eq!(s.unfinished, b"\x1b[?62;2");
        assert_eq!(
            keys(b"\x03\x1bx\x7fQ"),
            vec![
                Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
                alt('x'),
                Event::Key(KeyCode::Backspace.into()),
                ch('Q'),
            ]
        );
    }

    #[test]
    fn a_late_kitty_answer_is_no_keys() {
        let mut f = LateAnswers::default();
        let mut passed = Vec::new();
        let mut kitty = false;
        let answer = std::iter::once(alt('_'))
            .chain("Gi=31;OK".chars().map(ch))
            .chain([alt('\\'), ch('j')]);
        for ev in answer {
            let t = f.take(ev);
            passed.extend(t.pass);
            kitty |= t.kitty;
        }
        assert!(kitty);
        assert_eq!(passed, vec![ch('j')]);
        assert!(!f.holding());
        // an error answer: no keys, no kitty
        for ev in std::iter::once(alt('_')).chain("Gi=31;ENOENT".chars().map(ch)) {
            assert!(f.take(ev).pass.is_empty());
        }
        assert_eq!(f.take(alt('\\')), Taken::default());
    }

    #[test]
    fn keys_that_only_look_like_an_answer_go_on() {
        let mut f = LateAnswers::default();
        assert!(f.take(alt('_')).pass.is_empty());
        assert!(f.take(ch('a')).pass.is_empty());
        assert!(f.holding());
        // not a character: the held keys go first, then it
        let t = f.take(Event::Key(KeyCode::Enter.into()));
        assert_eq!(
            t.pass,
            vec![alt('_'), ch('a'), Event::Key(KeyCode::Enter.into())]
        );
        // nothing more in time: released as they came
        f.take(alt('_'));
        f.take(ch('x'));
        assert_eq!(f.release(), vec![alt('_'), ch('x')]);
        // Alt+\ after text not starting with G is a key
        f.take(alt('_'));
        f.take(ch('x'));
        assert_eq!(f.take(alt('\\')).pass, vec![alt('_'), ch('x'), alt('\\')]);
    }
}
