//! The one loopback / HOST classifier: validate, select, run, watch, the policy and the TUI all ask it.
//!
//! Loopback means exactly `localhost`, `127.0.0.0/8` and `::1`, judged on the host
//! a real URL parser (the `url` crate) finds, so userinfo (`127.0.0.1:1@some.host`),
//! fragments (`some.host#.localhost`), ports and trailing dots cannot fool it.
//! Anything else — `*.localhost`, `0.0.0.0`, IPv4-mapped IPv6, a name that merely
//! resolves here — is remote: the classifier never resolves names, so it cannot be
//! steered by DNS or `/etc/hosts`.
//!
//! It also scans a catalog text for the `scheme://host` URLs that are not built from
//! HOST ([`literal_hosts`], [`url_field_problem`]): the literal-host rule.

use super::vars::is_name;
// `core::net`: an address is parsed here, never connected to
use core::net::Ipv6Addr;
use url::{Host, Url};

/// What a HOST value (or a URL's host) is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostClass {
    /// This machine: `localhost`, `127.0.0.0/8`, `::1`.
    Loopback,
    /// Anything else that parses.
    Remote,
    /// Not `host[:port]` (the reason says why); treated as remote by every launcher.
    Invalid(String),
}

impl HostClass {
    /// Whether the host is this machine (`localhost`, `127.0.0.0/8`, `::1`).
    pub fn is_loopback(&self) -> bool {
        matches!(self, HostClass::Loopback)
    }
}

/// Classify a HOST value, which must be `host[:port]`: a name, an IPv4 address, or
/// an IPv6 address (bare without a port, or in brackets with or without one).
pub fn classify_host(host: &str) -> HostClass {
    match parse_host(host) {
        Ok(h) => class_of(&h),
        Err(e) => HostClass::Invalid(e),
    }
}

/// Whether a HOST value is loopback (an invalid one is not).
pub fn is_loopback_host(host: &str) -> bool {
    classify_host(host).is_loopback()
}

/// Why a HOST value is not `host[:port]`, if it is not.
pub fn host_problem(host: &str) -> Option<String> {
    match classify_host(host) {
        HostClass::Invalid(e) => Some(e),
        _ => None,
    }
}

/// Whether the host of a whole URL (after `${VAR}` expansion) is loopback. A URL
/// that does not parse, has no host, or is not plain ASCII is not.
pub fn url_is_loopback(url: &str) -> bool {
    parse_url(url).is_ok_and(|u| {
        u.host()
            .is_some_and(|h| class_of(&h.to_owned()).is_loopback())
    })
}

/// Parse a URL the way the HTTP client will be given it: the `url` crate's form
/// is what is both classified and sent, so the two can never disagree.
pub fn parse_url(url: &str) -> Result<Url, String> {
    if !url.is_ascii() {
        return Err(format!("{url:?}: a URL must be plain ASCII"));
    }
    Url::parse(url).map_err(|e| format!("{url:?}: {e}"))
}

fn class_of(h: &Host<String>) -> HostClass {
    let loopback = match h {
        // `localhost.` is the same name, fully qualified; `a.localhost` is not accepted
        Host::Domain(d) => d
            .strip_suffix('.')
            .unwrap_or(d)
            .eq_ignore_ascii_case("localhost"),
        Host::Ipv4(ip) => ip.octets()[0] == 127,
        Host::Ipv6(ip) => *ip == Ipv6Addr::LOCALHOST,
    };
    if loopback {
        HostClass::Loopback
    } else {
        HostClass::Remote
    }
}

/// `host[:port]` → the parsed host. Refuses anything a URL would read as more than
/// an authority (path, query, fragment, userinfo, a backslash, percent escapes),
/// blanks and controls, and non-ASCII text (no IDNA mapping turns a look-alike
/// into `localhost`).
fn parse_host(host: &str) -> Result<Host<String>, String> {
    if host.is_empty() {
        return Err("HOST is empty".into());
    }
    if !host.is_ascii() {
        return Err(format!("HOST {host:?} is not plain ASCII"));
    }
    if let Some(c) = host
        .chars()
        .find(|c| c.is_ascii_whitespace() || c.is_ascii_control() || "/?#@\\%".contains(*c))
    {
        return Err(format!(
            "HOST {host:?} holds {c:?}: it must be host[:port], not a URL"
        ));
    }
    // a bare IPv6 address has colons of its own: `::1`
    if host.contains(':') && !host.starts_with('[') {
        if let Ok(ip) = host.parse::<Ipv6Addr>() {
            return Ok(Host::Ipv6(ip));
        }
    }
    let url = Url::parse(&format!("http://{host}/"))
        .map_err(|e| format!("HOST {host:?} is not host[:port]: {e}"))?;
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(format!("HOST {host:?} is not host[:port]"));
    }
    match url.host() {
        Some(h) => Ok(h.to_owned()),
        None => Err(format!("HOST {host:?} names no host")),
    }
}

// ---- where the URLs of a catalog text get their host ----

/// A URL found in a text whose host is not HOST (or a var built from it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiteralHost {
    /// The URL as written, up to the end of its host.
    pub(crate) url: String,
    /// Byte offset in the text.
    pub offset: usize,
}

impl LiteralHost {
    /// What is wrong with it, the one wording every rule reports.
    pub(crate) fn message(&self) -> String {
        format!(
            "literal host in {:?}; a URL must be built from ${{HOST}} or a var derived from it",
            self.url
        )
    }
}

/// Every `scheme://host` of `text` whose host is not `${X}` with `X` host-derived.
pub fn literal_hosts(text: &str, derived: &dyn Fn(&str) -> bool) -> Vec<LiteralHost> {
    scan_hosts(text, derived, false)
}

/// As [`literal_hosts`], for a shell command: the vars reach the child as
/// environment variables, so the shell's own `$HOST` counts as HOST too.
pub fn literal_hosts_in_shell(text: &str, derived: &dyn Fn(&str) -> bool) -> Vec<LiteralHost> {
    scan_hosts(text, derived, true)
}

fn scan_hosts(text: &str, derived: &dyn Fn(&str) -> bool, shell: bool) -> Vec<LiteralHost> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find("://") {
        let sep = from + at;
        from = sep + 3;
        // the scheme: letters, digits, + - . before "://", starting with a letter
        let mut s = sep;
        while s > 0 && (bytes[s - 1].is_ascii_alphanumeric() || b"+-.".contains(&bytes[s - 1])) {
            s -= 1;
        }
        while s < sep && !bytes[s].is_ascii_alphabetic() {
            s += 1;
        }
        if s == sep {
            continue;
        }
        let authority = authority(&text[sep + 3..]);
        // userinfo ends at the last '@'
        let host_port = authority.rsplit('@').next().unwrap_or(authority);
        if host_port.is_empty() {
            continue; // file:///path has no host
        }
        let built_from_host =
            host_is_var(host_port, derived) || (shell && host_is_shell_var(host_port, derived));
        if !built_from_host {
            out.push(LiteralHost {
                url: text[s..sep + 3 + authority.len()].to_owned(),
                offset: s,
            });
        }
    }
    out
}

/// The authority of a URL after `://`: up to `/ ? #`, whitespace or a quote, with
/// `${...}` read as one unit.
fn authority(s: &str) -> &str {
    let b = s.as_bytes();
    let mut i = 0;
    // an IPv6 literal is one unit: `[::1]`
    if b.first() == Some(&b'[') {
        i = s.find(']').map_or(b.len(), |e| e + 1);
    }
    while i < b.len() {
        if b[i] == b'$' && b.get(i + 1) == Some(&b'{') {
            match s[i..].find('}') {
                Some(e) => i += e + 1,
                None => break,
            }
            continue;
        }
        if b"/?#\"'`<>()[]{}|\\,; \t\r\n".contains(&b[i]) {
            break;
        }
        i += 1;
    }
    &s[..i]
}

/// `$X` or `$X:port` with `X` host-derived (a shell variable).
fn host_is_shell_var(host_port: &str, derived: &dyn Fn(&str) -> bool) -> bool {
    let Some(rest) = host_port.strip_prefix('$') else {
        return false;
    };
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let (name, after) = rest.split_at(end);
    let port_ok = after.is_empty()
        || after.strip_prefix(':').is_some_and(|p| {
            p.chars().all(|c| c.is_ascii_digit())
                || p.strip_prefix('$').is_some_and(is_name)
                || (p.starts_with("${") && p.ends_with('}') && is_name(&p[2..p.len() - 1]))
        });
    is_name(name) && derived(name) && port_ok
}

/// `${X}` or `${X}:port` with `X` host-derived (port digits or a `${...}`).
fn host_is_var(host_port: &str, derived: &dyn Fn(&str) -> bool) -> bool {
    let Some(rest) = host_port.strip_prefix("${") else {
        return false;
    };
    let Some(end) = rest.find('}') else {
        return false;
    };
    let name = &rest[..end];
    let after = &rest[end + 1..];
    let port_ok = after.is_empty()
        || after.strip_prefix(':').is_some_and(|p| {
            p.chars().all(|c| c.is_ascii_digit())
                || (p.starts_with("${") && p.ends_with('}') && is_name(&p[2..p.len() - 1]))
        });
    is_name(name) && derived(name) && port_ok
}

/// Whether a URL field (how.url, a probe url, a session url) is built from HOST:
/// every `scheme://host` in it uses HOST or a derived var, and a value without
/// `://` starts with a derived `${X}`. Returns what is wrong, if anything.
pub fn url_field_problem(text: &str, derived: &dyn Fn(&str) -> bool) -> Option<String> {
    let lits = literal_hosts(text, derived);
    if let Some(l) = lits.first() {
        return Some(l.message());
    }
    if text.contains("://") {
        return None;
    }
    let starts_derived = text
        .strip_prefix("${")
        .and_then(|r| r.split_once('}'))
        .is_some_and(|(n, _)| is_name(n) && derived(n));
    (!starts_derived).then(|| {
        format!(
            "{text:?} is not built from ${{HOST}}: start it with http://${{HOST}} or a var derived from HOST"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_values() {
        let loopback: &[&str] = &[
            "127.0.0.1",
            "127.0.0.1:8095",
            "127.3.2.1",
            "127.255.255.255:1",
            "127.1",
            "localhost",
            "LOCALHOST",
            "LocalHost:80",
            "localhost.",
            "LOCALHOST.",
            "localhost.:8080",
            "::1",
            "[::1]",
            "[::1]:8080",
            "[0:0:0:0:0:0:0:1]",
        ];
        let remote: &[&str] = &[
            "0.0.0.0",
            "0.0.0.0:80",
            "10.0.0.5",
            "128.0.0.1",
            "192.168.1.2:80",
            "example.com",
            "api.localhost",
            "localhost.evil.com",
            "localhost.com",
            "evil-localhost",
            "::2",
            "[::ffff:127.0.0.1]",
            "::ffff:127.0.0.2",
            "[::]",
        ];
        for (class, hosts) in [(HostClass::Loopback, loopback), (HostClass::Remote, remote)] {
            for h in hosts {
                assert_eq!(classify_host(h), class, "{h}");
            }
        }
        for h in [
            "",
            " ",
            " 127.0.0.1",
            "127.0.0.1:1@some.host",
            "some.host#.localhost",
            "localhost/x",
            "localhost?x",
            "http://127.0.0.1",
            "127.0.0.1:99999",
            "127.0.0.1:port",
            "[::1",
            "loc%61lhost",
            "ｌｏｃａｌｈｏｓｔ",
            "a\\b",
            "a b",
        ] {
            assert!(
                matches!(classify_host(h), HostClass::Invalid(_)),
                "{h:?} => {:?}",
                classify_host(h)
            );
            assert!(!is_loopback_host(h), "{h:?}");
        }
    }

    #[test]
    fn urls() {
        for u in [
            "http://127.0.0.1:8095/health",
            "http://localhost/",
            "http://LOCALHOST./x",
            "https://[::1]:8443/a?b#c",
            "http://127.1/",
            "http://user:pw@127.0.0.1/",
            "http://evil.com@127.0.0.1/",
        ] {
            assert!(url_is_loopback(u), "{u}");
        }
        for u in [
            "http://127.0.0.1:1@some.host/",
            "http://127.0.0.1@some.host",
            "http://some.host#.localhost",
            "http://some.host/#@127.0.0.1",
            "http://some.host?@127.0.0.1",
            "http://some.host\\@127.0.0.1/",
            "http://localhost.evil.com/",
            "http://api.localhost/",
            "http://0.0.0.0:80/",
            "http://[::ffff:127.0.0.1]/",
            "http://ｌｏｃａｌｈｏｓｔ/",
            "/health",
            "",
            "not a url",
            "file:///etc/hosts",
        ] {
            assert!(!url_is_loopback(u), "{u}");
        }
    }
}
