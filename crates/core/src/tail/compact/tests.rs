use super::*;
use crate::tail::pretty_line;
use crate::workspace::timeline::parse_line;

/// The contract: an accepted line parses without issue and serializes back
/// to itself, and the fields point at what the parse found.
fn check(line: &str) -> bool {
    let (ev, issues) = parse_line(line.as_bytes());
    let Some(f) = compact_fields(line) else {
        return false;
    };
    assert!(issues.is_empty(), "{line}: {issues:?}");
    let back = serde_json::to_string(&ev).expect("json");
    assert_eq!(back, line, "accepted but not canonical");
    assert_eq!(f.ts.map(|s| s.text(line).into_owned()), ev.ts);
    assert_eq!(f.kind.text(line), ev.kind);
    assert_eq!(f.name.text(line), ev.name);
    assert_eq!(f.status.text(line), ev.status);
    assert_eq!(f.id.map(|s| s.text(line).into_owned()), ev.id);
    assert_eq!(f.message.text(line), ev.message);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(f.data.raw(line)).expect("data"),
        ev.data
    );
    for color in [false, true] {
        let mut out = String::from("before ");
        super::super::pretty::pretty_fields(line, &f, color, &mut out);
        assert_eq!(out, format!("before {}", pretty_line(&ev, color)));
    }
    true
}

#[test]
fn the_common_forms_are_accepted() {
    for line in [
        r#"{"ts":"2026-03-15T10:15:30.112Z","type":"step","name":"open","status":"ok","message":"opened","data":{"url":"/","n":[1,-2,true,false,null,{}],"e":[]}}"#,
        r#"{"type":"run","name":"","status":"","id":"r1","message":"","data":null}"#,
        r#"{"type":"","name":"a\"b\\c\nd\u0001\u001f","status":"info","message":"é ✓ \u001b[2J","data":"x\ty"}"#,
        r#"{"ts":"t","type":"error","name":"n","status":"failed","id":"i","message":"m","data":0}"#,
        r#"{"type":"signal","name":"n","status":"skipped","message":"m","data":{"a":{"a":{"a":1}},"b":{"a":2}}}"#,
        r#"{"type":"assertion","name":"n","status":"ok","message":"m","data":-123456789012345678}"#,
    ] {
        assert!(check(line), "not accepted: {line}");
    }
}

#[test]
fn anything_unsure_takes_the_full_parse() {
    for line in [
        // another order, spaces, a missing field
        r#"{"type":"step","ts":"t","name":"n","status":"ok","message":"m","data":null}"#,
        r#"{"type": "step","name":"n","status":"ok","message":"m","data":null}"#,
        r#"{"type":"step","name":"n","status":"ok","message":"m"}"#,
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":null} "#,
        "{\"type\":\"step\",\"name\":\"n\",\"status\":\"ok\",\"message\":\"m\",\"data\":null}\r",
        // unknown fields, wrong types, values outside the sets
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":null,"x":1}"#,
        r#"{"type":"step","name":5,"status":"ok","message":"m","data":null}"#,
        r#"{"ts":1773569730112,"type":"step","name":"n","status":"ok","message":"m","data":null}"#,
        r#"{"ts":null,"type":"step","name":"n","status":"ok","message":"m","data":null}"#,
        r#"{"type":"weird","name":"n","status":"ok","message":"m","data":null}"#,
        r#"{"type":"step","name":"n","status":"done","message":"m","data":null}"#,
        r#"{"type":"st\u0065p","name":"n","status":"ok","message":"m","data":null}"#,
        // escapes serde_json would write otherwise
        r#"{"type":"step","name":"\/","status":"ok","message":"m","data":null}"#,
        r#"{"type":"step","name":"\u0041","status":"ok","message":"m","data":null}"#,
        r#"{"type":"step","name":"\u000a","status":"ok","message":"m","data":null}"#,
        r#"{"type":"step","name":"\u001F","status":"ok","message":"m","data":null}"#,
        // numbers that do not come back as written
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":1.50}"#,
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":1e3}"#,
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":-0}"#,
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":012}"#,
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":99999999999999999999}"#,
        // a repeated key, broken JSON
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":{"a":1,"a":2}}"#,
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":{"a":1,}}"#,
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":[1,]}"#,
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":tru}"#,
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":"a"#,
        "{\"type\":\"step\",\"name\":\"a\tb\",\"status\":\"ok\",\"message\":\"m\",\"data\":null}",
        "",
        "{",
    ] {
        assert!(!check(line), "accepted: {line}");
    }
}

#[test]
fn deep_and_wide_values_are_left_to_the_full_parse() {
    let deep = format!(
        r#"{{"type":"step","name":"n","status":"ok","message":"m","data":{}1{}}}"#,
        "[".repeat(100),
        "]".repeat(100)
    );
    assert!(!check(&deep));
    let keys: Vec<String> = (0..100).map(|i| format!("\"k{i}\":{i}")).collect();
    let wide = format!(
        r#"{{"type":"step","name":"n","status":"ok","message":"m","data":{{{}}}}}"#,
        keys.join(",")
    );
    assert!(!check(&wide));
    let ok = format!(
        r#"{{"type":"step","name":"n","status":"ok","message":"m","data":{{{}}}}}"#,
        keys[..60].join(",")
    );
    assert!(check(&ok));
}

/// Random lines built from pieces near the edges of the form: whatever the
/// scanner accepts must keep the contract.
#[test]
fn random_lines_keep_the_contract() {
    let strings = [
        "\"\"",
        "\"a\"",
        "\"\\\"\"",
        "\"\\u0000\"",
        "\"\\u0008\"",
        "\"\\b\"",
        "\"\\u007f\"",
        "\"\u{7f}\"",
        "\"\\ud83d\\ude00\"",
        "\"😀\"",
        "\"\\/\"",
        "\"ok\"",
        "\"step\"",
        "\"\\u001b]52;c;SGVsbG8=\\u0007\"",
    ];
    let values = [
        "null",
        "true",
        "false",
        "0",
        "-1",
        "1.0",
        "-0",
        "[]",
        "{}",
        "[1,2]",
        "{\"a\":1}",
        "{\"a\":1,\"b\":{\"a\":[]}}",
        "{\"a\":1,\"a\":1}",
        "\"s\"",
        "1e2",
        "[ 1]",
    ];
    let mut rng = fastrand::Rng::with_seed(7);
    let mut accepted = 0;
    for _ in 0..20_000 {
        let pick = |rng: &mut fastrand::Rng, xs: &[&str]| one_of(rng, xs).to_owned();
        // mostly a value of the field's set (or one just outside it), else any string
        let near = |rng: &mut fastrand::Rng, set: &[&str]| {
            if rng.u8(..10) < 8 {
                pick(rng, set)
            } else {
                pick(rng, &strings)
            }
        };
        let mut parts = Vec::new();
        if rng.bool() {
            parts.push(format!("\"ts\":{}", pick(&mut rng, &strings)));
        }
        let kind = near(&mut rng, &["\"run\"", "\"step\"", "\"\"", "\"bad\""]);
        parts.push(format!("\"type\":{kind}"));
        parts.push(format!("\"name\":{}", pick(&mut rng, &strings)));
        let status = near(&mut rng, &["\"ok\"", "\"failed\"", "\"\"", "\"done\""]);
        parts.push(format!("\"status\":{status}"));
        if rng.bool() {
            parts.push(format!("\"id\":{}", pick(&mut rng, &strings)));
        }
        parts.push(format!("\"message\":{}", pick(&mut rng, &strings)));
        let data = if rng.bool() {
            pick(&mut rng, &values)
        } else {
            format!(
                "{{{}:{},{}:{}}}",
                pick(&mut rng, &strings),
                pick(&mut rng, &values),
                pick(&mut rng, &strings),
                pick(&mut rng, &strings)
            )
        };
        parts.push(format!("\"data\":{data}"));
        if rng.u8(..10) == 0 {
            parts.swap(0, 1);
        }
        let line = format!("{{{}}}", parts.join(","));
        accepted += usize::from(check(&line));
    }
    // the generator must reach both sides of the decision
    assert!(accepted > 1000, "{accepted}");
    assert!(accepted < 19_000, "{accepted}");
}

/// One of `xs`, at random.
fn one_of<'a>(rng: &mut fastrand::Rng, xs: &[&'a str]) -> &'a str {
    xs[rng.usize(..xs.len())]
}

/// serde_json's compact re-serialization of a line, if it reads it.
fn serde_compact(line: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    Some(serde_json::to_string(&v).expect("a value serializes"))
}

/// A small key set, so that repeats happen (also written as escapes).
const KEYS: [&str; 6] = [
    "\"a\"",
    "\"b\"",
    "\"\\u0061\"",
    "\"c\\/d\"",
    "\"c/d\"",
    "\"é\"",
];

/// Numbers of every shape: canonical, reprinted, out of range, invalid.
const NUMBERS: [&str; 32] = [
    "0",
    "-0",
    "1",
    "-1",
    "42",
    "007",
    "1.5",
    "1.50",
    "0.1",
    "-0.0",
    "1e3",
    "1E+3",
    "2.5e-7",
    "1e-05",
    "1e400",
    "-1e400",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "99999999999999999999999",
    "123456789012345678",
    "1.",
    ".5",
    "-",
    "+1",
    "1e",
    "0x10",
    "3.141592653589793",
    "1.7976931348623157e308",
    "5e-324",
    "4.9e-324",
];

/// Pieces of a string's text: plain, every escape form, broken escapes, raw controls.
const STRING_PIECES: [&str; 33] = [
    "a",
    "é",
    "😀",
    "\u{202e}",
    "\u{7f}",
    "\u{85}",
    " ",
    "\\\"",
    "\\\\",
    "\\/",
    "\\b",
    "\\f",
    "\\n",
    "\\r",
    "\\t",
    "\\u0000",
    "\\u001b",
    "\\u001F",
    "\\u0041",
    "\\u00e9",
    "\\u00E9",
    "\\u202e",
    "\\u007f",
    "\\ud83d\\ude00",
    "\\uD83D\\uDE00",
    "\\ud83d",
    "\\ude00",
    "\\ud83d\\u0041",
    "\\ud83dx",
    "\\u12",
    "\\x",
    "\t",
    "\u{1}",
];

/// A random JSON value written in a random valid (or, now and then,
/// broken) form: spaces anywhere, every escape form, numbers of every
/// shape, nesting, repeated keys.
fn gen_value(rng: &mut fastrand::Rng, depth: u32, out: &mut String) {
    let ws = |rng: &mut fastrand::Rng, out: &mut String| {
        for _ in 0..rng.usize(..3) {
            out.push([' ', '\t', '\r', '\n'][rng.usize(..4)]);
        }
    };
    ws(rng, out);
    let pick = if depth > 6 { rng.u8(..6) } else { rng.u8(..9) };
    match pick {
        0 => out.push_str(one_of(rng, &["null", "true", "false"])),
        1 | 2 => out.push_str(one_of(rng, &NUMBERS)),
        3..=5 => gen_string(rng, out),
        6 | 7 => {
            out.push('{');
            let n = rng.usize(..5);
            for k in 0..n {
                if k > 0 {
                    out.push(',');
                }
                ws(rng, out);
                out.push_str(one_of(rng, &KEYS));
                ws(rng, out);
                out.push(':');
                gen_value(rng, depth + 1, out);
            }
            ws(rng, out);
            out.push('}');
        }
        _ => {
            out.push('[');
            let n = rng.usize(..5);
            for k in 0..n {
                if k > 0 {
                    out.push(',');
                }
                gen_value(rng, depth + 1, out);
            }
            ws(rng, out);
            out.push(']');
        }
    }
    ws(rng, out);
}

fn gen_string(rng: &mut fastrand::Rng, out: &mut String) {
    out.push('"');
    for _ in 0..rng.usize(..5) {
        out.push_str(one_of(rng, &STRING_PIECES));
    }
    out.push('"');
}

/// The contract of `normalize`: whatever it accepts, serde_json reads, and
/// prints back in compact form to exactly what `normalize` wrote; whatever
/// serde_json refuses, `normalize` refuses.
#[test]
fn normalize_is_serde_json_compact_form() {
    let mut rng = fastrand::Rng::with_seed(17);
    let (mut accepted, mut refused, mut left) = (0, 0, 0);
    for _ in 0..30_000 {
        let mut line = String::new();
        gen_value(&mut rng, 0, &mut line);
        let want = serde_compact(&line);
        match (normalize(&line), want) {
            (Some(got), Some(want)) => {
                assert_eq!(got, want, "{line:?}");
                accepted += 1;
            }
            (Some(got), None) => panic!("accepted invalid JSON {line:?} as {got:?}"),
            (None, None) => refused += 1,
            // only a repeated key is left to the full parse at these sizes
            (None, Some(_)) => left += 1,
        }
    }
    assert!(accepted > 5_000, "{accepted} {refused} {left}");
    assert!(refused > 5_000, "{accepted} {refused} {left}");
    assert!(left < 5_000, "{accepted} {refused} {left}");
}

#[test]
fn normalize_keeps_the_hard_cases_exact() {
    for (line, want) in [
        (
            r#" { "ts" : "t" , "a" : [ 1 , 2 ] } "#,
            r#"{"ts":"t","a":[1,2]}"#,
        ),
        (
            r#"["\u00e9\u00E9\/\ud83d\ude00\uD83D\uDE00"]"#,
            "[\"éé/😀😀\"]",
        ),
        (
            r#"["\u0000\u001F\u0008\u000A\"\\"]"#,
            r#"["\u0000\u001f\b\n\"\\"]"#,
        ),
        (r#"["\u202e\u007f\u0085"]"#, "[\"\u{202e}\u{7f}\u{85}\"]"),
        (
            "[18446744073709551615,-9223372036854775808]",
            "[18446744073709551615,-9223372036854775808]",
        ),
        (
            "[18446744073709551616,-0,1e-05,1E+3,0.10]",
            "[1.8446744073709552e+19,-0.0,0.00001,1000.0,0.1]",
        ),
        ("{\"a\":1}\r", "{\"a\":1}"),
    ] {
        assert_eq!(normalize(line).as_deref(), Some(want), "{line}");
        assert_eq!(serde_compact(line).as_deref(), Some(want), "{line}");
    }
}

#[test]
fn normalize_refuses_invalid_and_hostile_input() {
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_obj = "{\"a\":".repeat(100_000);
    let wide: Vec<String> = (0..100).map(|i| format!("\"k{i}\":{i}")).collect();
    let wide = format!("{{{}}}", wide.join(","));
    for line in [
        "",
        " ",
        "{",
        "}",
        "[1,]",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{a:1}",
        "[01]",
        "[1.]",
        "[.5]",
        "[+1]",
        "[1e]",
        "[-]",
        "[NaN]",
        "[Infinity]",
        "[1e400]",
        "[tru]",
        "[nul]",
        "\"\\ud83d\"",
        "\"\\ude00\"",
        "\"\\ud83d\\u0041\"",
        "\"\\u12\"",
        "\"\\x\"",
        "\"a\tb\"",
        "\"a\u{1}b\"",
        "\"abc",
        "\"\\",
        "[1] [2]",
        "{\"a\":1}x",
        "[1]\u{a0}",
        r#"{"a":1,"a":2}"#,
        r#"{"a":1,"\u0061":2}"#,
        &deep,
        &deep_obj,
        &wide,
    ] {
        assert_eq!(normalize(line), None, "{line:.60}");
    }
}

/// A clean event written with spaces and escapes takes the fast path and
/// prints what the full parse prints; a DEL, C1, bidi or other control
/// character written as an escape never comes out raw.
#[test]
fn spaced_events_take_the_fast_path_with_the_full_parse_output() {
    use crate::tail::Line;
    for line in [
        r#"{"ts": "2026-03-15T10:15:30.112Z", "type": "step", "name": "open", "status": "ok", "message": "opened", "data": {"url": "/", "n": [1, 2.5, true]}}"#,
        r#"{ "type" : "run" , "name" : "caf\u00e9 \ud83d\ude00" , "status" : "" , "id" : "r1" , "message" : "a\/b" , "data" : null }"#,
        r#"{"type": "step", "name": "\u202e\u2066evil", "status": "ok", "message": "\u001b[2J\u007f\u0085\u0007", "data": {"k": "\u202e"}}"#,
    ] {
        let l = Line::from_raw(1, 0, line.as_bytes()).expect("a line");
        assert!(l.is_compact(), "{line}");
        let (ev, issues) = parse_line(line.as_bytes());
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(l.event(), &ev);
        let mut json = Vec::new();
        l.write_json(&mut json).expect("to memory");
        let json = String::from_utf8(json).expect("utf-8");
        assert_eq!(json, crate::sanitize::to_json(&ev, false).expect("json"));
        for c in json.chars() {
            let u = c as u32;
            assert!(
                !(u < 0x20
                    || u == 0x7f
                    || (0x80..0xa0).contains(&u)
                    || matches!(u, 0x202a..=0x202e | 0x2066..=0x2069)),
                "raw {u:#x} in {json}"
            );
        }
        for color in [false, true] {
            assert_eq!(l.pretty(color), pretty_line(&ev, color));
        }
    }
    // not clean (a type outside the set) or a field beyond the fixed ones: the full way
    for line in [
        r#"{"type": "weird", "name": "n", "status": "ok", "message": "m", "data": null}"#,
        r#"{"name": "n", "type": "step", "status": "ok", "message": "m", "data": null, "x": 1}"#,
    ] {
        let l = Line::from_raw(1, 0, line.as_bytes()).expect("a line");
        assert!(!l.is_compact(), "{line}");
        assert_eq!(l.issues, parse_line(line.as_bytes()).1);
    }
}

/// What the full parse gives for `raw`: the reference of every path.
fn full_parse(raw: &str) -> crate::tail::Line {
    let (ev, issues) = parse_line(raw.as_bytes());
    crate::tail::Line::parsed(1, 0, ev, issues)
}

/// The line as the engine reads it gives the full parse's output, byte for
/// byte, and nothing raw that `--json` output must not carry; returns
/// whether it took the fast path.
fn same_as_full_parse(raw: &str) -> bool {
    let Some(got) = crate::tail::Line::from_raw(1, 0, raw.as_bytes()) else {
        assert!(raw.bytes().all(|b| b.is_ascii_whitespace()), "{raw:?}");
        return false;
    };
    let want = full_parse(raw);
    assert_eq!(got.issues, want.issues, "{raw:?}");
    assert_eq!(got.event(), want.event(), "{raw:?}");
    let json = |l: &crate::tail::Line| {
        let mut out = Vec::new();
        l.write_json(&mut out).expect("to memory");
        String::from_utf8(out).expect("utf-8")
    };
    let out = json(&got);
    assert_eq!(out, json(&want), "{raw:?}");
    assert!(
        !out.chars().any(|c| c < ' '
            || ('\u{7f}'..'\u{a0}').contains(&c)
            || crate::sanitize::is_invisible_format(c)),
        "raw control in {out:?}"
    );
    for color in [false, true] {
        assert_eq!(got.pretty(color), want.pretty(color), "{raw:?}");
    }
    if got.is_compact() {
        assert!(got.issues.is_empty(), "{raw:?}");
    }
    got.is_compact()
}

/// Every valid shape of a clean event takes the fast path (kept as written
/// or rewritten in one scan, never parsed into a tree) with the full
/// parse's output.
#[test]
fn every_valid_shape_takes_the_fast_path() {
    let base = r#""type":"step","name":"n","status":"ok","message":"m""#;
    for line in [
        // `null` where runners write it: no id, no time, no data
        r#"{"ts":"t","type":"step","name":"n","status":"ok","id":null,"message":"m","data":null}"#.to_owned(),
        format!(r#"{{"ts":null,{base},"data":1}}"#),
        r#"{"type":"step","name":null,"status":null,"message":null,"data":null}"#.into(),
        // true, false, numbers of every form, nesting
        format!(r#"{{{base},"data":[true,false,null]}}"#),
        format!(
            r#"{{{base},"data":{{"i":-42,"f":0.25,"e":2.5e-7,"E":1E+3,"z":-0,"big":18446744073709551616}}}}"#
        ),
        format!(
            r#"{{{base},"data":{{"a":[1,[2,[3,{{"b":[true,{{}}]}}]]],"o":{{"p":{{"q":[]}}}}}}}}"#
        ),
        // spaces between every token, another key order, missing and repeated fields
        r#" { "data" : { "a" : [ 1 , null ] } , "message" : "m" , "status" : "ok" , "name" : "n" , "type" : "step" } "#.into(),
        r#"{"type":"run"}"#.into(),
        "{}".into(),
        format!(r#"{{{base},"data":1,"data":2,"name":"again"}}"#),
        // a time in epoch milliseconds, kept as its text
        format!(r#"{{"ts":1773569730112,{base},"data":null}}"#),
        format!(r#"{{"ts":1.5e3,{base},"data":null}}"#),
        // escapes of every kind, bidi and control characters inside strings
        r#"{"type":"st\u0065p","name":"caf\u00e9 \ud83d\ude00 \/","status":"ok","message":"\u202e\u2066\u2028\u001b[2J\u007f\u0085\u0007","data":{"k\u0000":"\u202e\t"}}"#.into(),
        format!("{{{base},\"data\":\"\u{202e}\u{2028}\u{85}\u{7f}\"}}"),
    ] {
        assert!(same_as_full_parse(&line), "not on the fast path: {line}");
    }
    // what the full parse has to say, or keeps beside the fixed fields
    for line in [
        r#"{"type":"weird","name":"n","status":"ok","message":"m","data":null}"#,
        r#"{"type":"step","name":5,"status":"ok","message":"m","data":null}"#,
        r#"{"type":"step","name":true,"status":"ok","message":"m","data":null}"#,
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":null,"x":1}"#,
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":{"a":1,"a":2}}"#,
        r#"{"type":"step","name":"n","status":"ok","message":"m","data":null"#,
        "[1]",
        "{\"type\":\"step\",\"name\":\"a\tb\"}",
    ] {
        assert!(!same_as_full_parse(line), "on the fast path: {line}");
    }
}

/// A random field value: every JSON shape, the text fields' own shapes more
/// often (strings, `null`, a number for `ts`).
fn gen_field(rng: &mut fastrand::Rng, key: &str, out: &mut String) {
    match rng.u8(..20) {
        0 => out.push_str("null"),
        1 if key == "\"ts\"" => out.push_str(one_of(rng, &NUMBERS)),
        1..=18 if key != "\"data\"" => gen_text(rng, out),
        _ => gen_data(rng, 0, out),
    }
}

/// A string, mostly valid: every escape form, bidi and control characters
/// raw and escaped; one in 20 from [`gen_string`] (broken escapes, raw
/// C0 controls).
fn gen_text(rng: &mut fastrand::Rng, out: &mut String) {
    if rng.u8(..20) == 0 {
        return gen_string(rng, out);
    }
    out.push('"');
    for _ in 0..rng.usize(..5) {
        out.push_str(one_of(rng, &STRING_PIECES[..25]));
    }
    out.push('"');
}

/// A random `data` value with distinct keys (the full parse keeps one of
/// a repeated key: left to it), now and then one from [`gen_value`].
fn gen_data(rng: &mut fastrand::Rng, depth: u32, out: &mut String) {
    let sp = |rng: &mut fastrand::Rng, out: &mut String| {
        if rng.u8(..4) == 0 {
            out.push_str(one_of(rng, &[" ", "  ", "\t", " \r\n "]));
        }
    };
    sp(rng, out);
    match rng.u8(..if depth > 4 { 5 } else { 8 }) {
        0 => out.push_str(one_of(rng, &["null", "true", "false"])),
        1 | 2 => out.push_str(one_of(rng, &NUMBERS)),
        3 => gen_text(rng, out),
        4 if rng.u8(..8) == 0 => gen_value(rng, depth, out),
        4 | 5 => {
            out.push('[');
            for k in 0..rng.usize(..4) {
                if k > 0 {
                    out.push(',');
                }
                gen_data(rng, depth + 1, out);
            }
            sp(rng, out);
            out.push(']');
        }
        _ => {
            out.push('{');
            for k in 0..rng.usize(..4) {
                if k > 0 {
                    out.push(',');
                }
                sp(rng, out);
                let tail = one_of(rng, &["", "é", "\\u00e9", "\\n"]);
                for piece in ["\"k", &k.to_string(), tail, "\""] {
                    out.push_str(piece);
                }
                sp(rng, out);
                out.push(':');
                gen_data(rng, depth + 1, out);
            }
            sp(rng, out);
            out.push('}');
        }
    }
    sp(rng, out);
}

/// Many random lines of every shape — fields in any order, missing,
/// repeated or of another type, `null`, numbers, nesting, spaces, escapes,
/// bidi and control characters, unknown fields, broken JSON: the engine's
/// output is the full parse's, and every clean event with only the fixed
/// fields takes the fast path.
#[test]
fn the_fast_path_gives_the_full_parse_output_for_every_line() {
    const FIELDS: [&str; 8] = [
        "\"ts\"",
        "\"type\"",
        "\"name\"",
        "\"status\"",
        "\"id\"",
        "\"message\"",
        "\"data\"",
        "\"extra\"",
    ];
    let mut rng = fastrand::Rng::with_seed(30);
    let (mut fast, mut full) = (0, 0);
    for _ in 0..40_000 {
        let mut order: Vec<usize> = (0..7).filter(|_| rng.u8(..8) != 0).collect();
        rng.shuffle(&mut order);
        if rng.u8(..10) == 0 {
            order.push(rng.usize(..8));
        }
        let mut line = String::from(one_of(&mut rng, &["", " ", "\t"]));
        line.push('{');
        for (k, &f) in order.iter().enumerate() {
            if k > 0 {
                line.push_str(one_of(&mut rng, &[",", ", ", " ,\t"]));
            }
            let key = FIELDS[f];
            line.push_str(key);
            line.push_str(one_of(&mut rng, &[":", ": ", " : "]));
            match (f, rng.u8(..8)) {
                // mostly a value of the field's set
                (1, 0..=6) => {
                    let v = one_of(&mut rng, &["run", "step", "error"]);
                    line.extend(["\"", v, "\""]);
                }
                (3, 0..=6) => {
                    let v = one_of(&mut rng, &["ok", "failed", "info"]);
                    line.extend(["\"", v, "\""]);
                }
                _ => gen_field(&mut rng, key, &mut line),
            }
        }
        line.push('}');
        if rng.u8(..50) == 0 {
            // broken on purpose (cut on a character boundary)
            let mut cut = rng.usize(..line.len());
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            line.truncate(cut);
        }
        if same_as_full_parse(&line) {
            fast += 1;
        } else {
            full += 1;
            let (ev, issues) = parse_line(line.as_bytes());
            // gen_value's values may repeat a key or nest deep: left to the full parse
            let unsure = KEYS.iter().any(|k| line.contains(k));
            assert!(
                !issues.is_empty() || !ev.extra.is_empty() || unsure,
                "a clean event took the full parse: {line}"
            );
        }
    }
    assert!(fast > 10_000 && full > 5_000, "{fast} {full}");
}
