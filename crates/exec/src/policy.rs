//! The launch policy, one pure function: given a case's risk, gate, assume and
//! liveness, the session's max risk, HOST, authorization switches and grants,
//! decide Allowed, Skip(reason) or NeedsPrompt(what the TUI must ask).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use testdeck_core::workspace::host;

pub use testdeck_core::workspace::risk::Risk;

/// Where an authorization came from (recorded as `how` in the run record).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GrantSource {
    /// The variable is `true` in the process environment.
    Environment,
    /// The variable is `true` in `.pouch/tester/local.yaml`.
    #[serde(rename = "local.yaml")]
    LocalYaml,
    /// `--authorize RISK`, `--gate G`, `--allow-live`, `--allow-remote`.
    Flag,
    /// The person answered a prompt in the TUI.
    Prompt,
}

impl GrantSource {
    /// The name written in the run record (`environment`, `local.yaml`, `flag`, `prompt`).
    pub fn as_str(self) -> &'static str {
        match self {
            GrantSource::Environment => "environment",
            GrantSource::LocalYaml => "local.yaml",
            GrantSource::Flag => "flag",
            GrantSource::Prompt => "prompt",
        }
    }
}

/// One thing a session may be authorized for.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "name")]
pub enum Grantable {
    /// Running cases of this risk.
    Risk(Risk),
    /// Opening this project gate.
    Gate(String),
    /// Launching `live` cases of the tests tree.
    Live,
    /// Working against a non-loopback HOST.
    Remote,
}

impl Grantable {
    /// `risk:mutating`, `gate:payments`, `live`, `remote`.
    pub fn label(&self) -> String {
        match self {
            Grantable::Risk(r) => format!("risk:{r}"),
            Grantable::Gate(g) => format!("gate:{g}"),
            Grantable::Live => "live".into(),
            Grantable::Remote => "remote".into(),
        }
    }
}

/// Authorizations granted in this session by flags or prompts (never written
/// to disk as configuration; recorded in the run record only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// Each thing granted, and how.
    pub granted: BTreeMap<Grantable, Grant>,
    /// What the person answered "no" to in this launch: what needs it is
    /// skipped, never asked again (a headless session never has any).
    pub(crate) refused: BTreeSet<Grantable>,
}

/// How and when something was granted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub(crate) how: GrantSource,
    /// RFC 3339 UTC.
    pub(crate) when: String,
}

impl Grants {
    /// Grant `what` now (a first grant is kept: it says when it began).
    pub fn grant(&mut self, what: Grantable, how: GrantSource) {
        self.granted.entry(what).or_insert_with(|| Grant {
            how,
            when: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        });
    }
    /// Refuse `what` for this launch (a prompt answered "no").
    pub fn refuse(&mut self, what: Grantable) {
        self.refused.insert(what);
    }
    pub(crate) fn is_refused(&self, what: &Grantable) -> bool {
        self.refused.contains(what)
    }
    /// How `what` was granted, if it was.
    pub fn get(&self, what: &Grantable) -> Option<GrantSource> {
        self.granted.get(what).map(|g| g.how)
    }
    /// When `what` was granted.
    pub(crate) fn when(&self, what: &Grantable) -> Option<&str> {
        self.granted.get(what).map(|g| g.when.as_str())
    }
}

/// The session side of a decision.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    /// Headless runs never prompt: what would be asked is skipped.
    pub(crate) headless: bool,
    pub(crate) max_risk: Risk,
    pub host: String,
    /// `authorize`: risk → variable name.
    pub(crate) authorize: BTreeMap<Risk, String>,
    /// `gates`: gate → variable name.
    pub(crate) gates: BTreeMap<String, String>,
    /// Authorization switches already resolved: variable → (value, where from),
    /// process environment first, then local.yaml.
    pub(crate) switches: BTreeMap<String, (String, GrantSource)>,
    pub(crate) grants: Grants,
}

/// The case side of a decision.
#[derive(Debug, Clone, Default)]
pub(crate) struct CaseFacts {
    pub id: String,
    /// `None` for a tests-tree case (the runner has no risk ladder).
    pub(crate) risk: Option<Risk>,
    pub(crate) gate: Option<String>,
    /// The `assume` expression and whether it held.
    pub assume: Option<(String, bool)>,
    /// A tests-tree case under a `live/` folder.
    pub(crate) live: bool,
    /// A URL the case (or its category's probe) would reach whose host is not
    /// loopback, when HOST itself is: it needs the remote grant all the same.
    pub(crate) remote_url: Option<String>,
}

/// What the TUI must ask before the case may run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Prompt {
    /// A yes/no naming the case, its risk and the HOST.
    Mutating {
        /// The case.
        case: String,
        /// The HOST it addresses.
        host: String,
    },
    /// The person types the word `destructive`.
    Destructive {
        /// The case.
        case: String,
        /// The HOST it addresses.
        host: String,
    },
    /// A yes/no for a gate.
    Gate {
        /// The case.
        case: String,
        /// The gate, one of the catalog's `gates`.
        gate: String,
        /// The switch variable that opens it, when `gates` names one.
        variable: Option<String>,
    },
    /// A yes/no: the case calls a real model.
    Live {
        /// The case.
        case: String,
    },
    /// The HOST (or a URL of a case) is not loopback: asked before any case
    /// runs and before anything is sent, readonly and tests-tree cases included.
    Remote {
        /// The HOST, or the case's URL, that is not loopback.
        host: String,
    },
}

impl Prompt {
    /// What granting this prompt authorizes.
    pub fn grants(&self) -> Grantable {
        match self {
            Prompt::Mutating { .. } => Grantable::Risk(Risk::Mutating),
            Prompt::Destructive { .. } => Grantable::Risk(Risk::Destructive),
            Prompt::Gate { gate, .. } => Grantable::Gate(gate.clone()),
            Prompt::Live { .. } => Grantable::Live,
            Prompt::Remote { .. } => Grantable::Remote,
        }
    }
    /// The reason a headless run gives when it skips instead of asking.
    pub(crate) fn headless_reason(&self) -> String {
        match self {
            Prompt::Mutating { .. } => "mutating is not authorized".into(),
            Prompt::Destructive { .. } => "destructive is not authorized".into(),
            Prompt::Gate { gate, .. } => format!("gate {gate} is not authorized"),
            Prompt::Live { .. } => "live case (calls a real model): needs --allow-live".into(),
            // a case URL (HOST itself was loopback) or HOST
            Prompt::Remote { host } if host.contains("://") => {
                format!("URL {host} is not loopback: needs --allow-remote")
            }
            Prompt::Remote { host } => {
                format!("HOST {host} is not loopback: needs --allow-remote")
            }
        }
    }
}

/// One authorization a case used: recorded and passed to the child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Used {
    /// What was authorized.
    pub what: Grantable,
    pub(crate) how: GrantSource,
    /// The switch variable set to `true` in the child's environment.
    pub(crate) variable: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
/// What the policy says about one case before it is launched.
pub enum Decision {
    /// It may run, with the authorizations it uses.
    Allowed(Vec<Used>),
    /// It is skipped, for this reason.
    Skip(String),
    /// The person must be asked first (never headless).
    NeedsPrompt(Prompt),
}

/// Decide one case. Order: max risk and assume (so nothing is asked for a case
/// that would be skipped anyway), remote HOST (before anything else is asked or
/// sent: readonly and tests-tree cases too), liveness, risk authorization, gate.
#[expect(
    clippy::too_many_lines,
    reason = "the decision rules in their documented order, first match wins"
)]
pub(crate) fn decide(s: &Session, c: &CaseFacts) -> Decision {
    let mut used = Vec::new();
    let ask = |p: Prompt| {
        if s.headless {
            Decision::Skip(p.headless_reason())
        } else if s.grants.is_refused(&p.grants()) {
            Decision::Skip(format!("{} (not granted)", p.headless_reason()))
        } else {
            Decision::NeedsPrompt(p)
        }
    };
    if let Some(risk) = c.risk {
        if risk > s.max_risk {
            return Decision::Skip(format!("risk {risk} is above the max risk {}", s.max_risk));
        }
        if let Some((expr, false)) = &c.assume {
            return Decision::Skip(format!("assume is false: {expr}"));
        }
    }
    // a remote HOST (or a URL of the case that is not loopback): nothing is sent
    // and nothing runs until the person allows it, whatever the risk
    let remote = if host::is_loopback_host(&s.host) {
        c.remote_url.clone()
    } else {
        Some(s.host.clone())
    };
    if let Some(target) = remote {
        match s.grants.get(&Grantable::Remote) {
            Some(how) => used.push(Used {
                what: Grantable::Remote,
                how,
                variable: None,
            }),
            None => return ask(Prompt::Remote { host: target }),
        }
    }
    if c.live {
        match s.grants.get(&Grantable::Live) {
            Some(how) => used.push(Used {
                what: Grantable::Live,
                how,
                variable: None,
            }),
            None => return ask(Prompt::Live { case: c.id.clone() }),
        }
    }
    let Some(risk) = c.risk else {
        return Decision::Allowed(used);
    };
    if risk > Risk::Readonly {
        let what = Grantable::Risk(risk);
        let var = s.authorize.get(&risk).cloned();
        let Some(how) = switch_or_grant(s, var.as_deref(), &what) else {
            let p = if risk == Risk::Destructive {
                Prompt::Destructive {
                    case: c.id.clone(),
                    host: s.host.clone(),
                }
            } else {
                Prompt::Mutating {
                    case: c.id.clone(),
                    host: s.host.clone(),
                }
            };
            return match (s.headless, var) {
                (true, Some(v)) => Decision::Skip(format!(
                    "{risk} is not authorized: needs {v}=true or --authorize {risk}"
                )),
                (true, None) => Decision::Skip(format!(
                    "{risk} is not authorized: needs --authorize {risk}"
                )),
                (false, _) => ask(p),
            };
        };
        used.push(Used {
            what,
            how,
            variable: var,
        });
    }
    if let Some(gate) = &c.gate {
        let what = Grantable::Gate(gate.clone());
        let var = s.gates.get(gate).cloned();
        match switch_or_grant(s, var.as_deref(), &what) {
            Some(how) => used.push(Used {
                what,
                how,
                variable: var,
            }),
            None if s.headless => {
                return Decision::Skip(match var {
                    Some(v) => {
                        format!("gate {gate} is not authorized: needs {v}=true or --gate {gate}")
                    }
                    None => format!("gate {gate} is not authorized: needs --gate {gate}"),
                });
            }
            None => {
                return ask(Prompt::Gate {
                    case: c.id.clone(),
                    gate: gate.clone(),
                    variable: var,
                });
            }
        }
    }
    Decision::Allowed(used)
}

/// Apply `run_together` to decisions made one member at a time: a group runs
/// only when every member may. When a member is skipped (not authorized, a
/// prompt answered no, assume false), every other member of its group is skipped
/// too, naming it; a member still waiting for a prompt keeps it (the group runs
/// only if every prompt is answered yes). `groups[i]` is the group of `ds[i]`.
pub(crate) fn decide_groups(ds: &mut [(String, Decision)], groups: &[Option<usize>]) {
    let mut blocked: BTreeMap<usize, (String, String)> = BTreeMap::new();
    for ((id, d), g) in ds.iter().zip(groups) {
        if let (Decision::Skip(r), Some(g)) = (d, g) {
            blocked.entry(*g).or_insert_with(|| (id.clone(), r.clone()));
        }
    }
    for ((_, d), g) in ds.iter_mut().zip(groups) {
        let Some((who, why)) = g.and_then(|g| blocked.get(&g)) else {
            continue;
        };
        if !matches!(d, Decision::Skip(_)) {
            *d = Decision::Skip(format!("run_together: {who} will not run ({why})"));
        }
    }
}

/// How strict a prompt is: the remote HOST comes before anything, then what a
/// key press cannot grant, then gates, mutating, live.
pub(crate) fn strictness(p: &Prompt) -> u8 {
    match p {
        Prompt::Remote { .. } => 4,
        Prompt::Destructive { .. } => 3,
        Prompt::Gate { .. } => 2,
        Prompt::Mutating { .. } => 1,
        Prompt::Live { .. } => 0,
    }
}

/// The question to ask next: the strictest of every `NeedsPrompt` (the first in
/// execution order among equals), so a remote HOST is asked before any case and
/// a group's strictest prompt before its milder ones.
pub fn next_prompt(ds: &[(String, Decision)]) -> Option<&Prompt> {
    let mut best: Option<&Prompt> = None;
    for (_, d) in ds {
        if let Decision::NeedsPrompt(p) = d {
            if best.is_none_or(|b| strictness(p) > strictness(b)) {
                best = Some(p);
            }
        }
    }
    best
}

/// The switch variable when it is `true`, else a session grant.
fn switch_or_grant(s: &Session, var: Option<&str>, what: &Grantable) -> Option<GrantSource> {
    var.and_then(|v| s.switches.get(v))
        .filter(|(value, _)| value.trim() == "true")
        .map(|(_, how)| *how)
        .or_else(|| s.grants.get(what))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(headless: bool, max: Risk, host: &str) -> Session {
        Session {
            headless,
            max_risk: max,
            host: host.into(),
            authorize: [
                (Risk::Mutating, "ALLOW_MUTATING".to_owned()),
                (Risk::Destructive, "ALLOW_DESTRUCTIVE".to_owned()),
            ]
            .into(),
            gates: [("payments".to_owned(), "ALLOW_PAYMENTS".to_owned())].into(),
            switches: BTreeMap::new(),
            grants: Grants::default(),
        }
    }

    fn case(risk: Risk) -> CaseFacts {
        CaseFacts {
            id: "TC-1".into(),
            risk: Some(risk),
            ..CaseFacts::default()
        }
    }

    /// How a risk or gate authorization is supplied in one combination.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Auth {
        None,
        EnvTrue,
        EnvFalse,
        LocalTrue,
        Flag,
        Prompt,
    }
    const AUTHS: [Auth; 6] = [
        Auth::None,
        Auth::EnvTrue,
        Auth::EnvFalse,
        Auth::LocalTrue,
        Auth::Flag,
        Auth::Prompt,
    ];

    fn apply(s: &mut Session, a: Auth, var: &str, what: Grantable) -> Option<GrantSource> {
        match a {
            Auth::None => None,
            Auth::EnvTrue => {
                s.switches
                    .insert(var.into(), ("true".into(), GrantSource::Environment));
                Some(GrantSource::Environment)
            }
            Auth::EnvFalse => {
                s.switches
                    .insert(var.into(), ("false".into(), GrantSource::Environment));
                None
            }
            Auth::LocalTrue => {
                s.switches
                    .insert(var.into(), ("true".into(), GrantSource::LocalYaml));
                Some(GrantSource::LocalYaml)
            }
            Auth::Flag => {
                s.grants.grant(what, GrantSource::Flag);
                Some(GrantSource::Flag)
            }
            Auth::Prompt => {
                s.grants.grant(what, GrantSource::Prompt);
                Some(GrantSource::Prompt)
            }
        }
    }

    /// Every combination of mode, max risk, case risk, risk authorization,
    /// gate and its authorization, assume, HOST and remote grant.
    #[test]
    fn every_combination() {
        let mut n = 0;
        for headless in [true, false] {
            for max in Risk::ALL {
                for risk in Risk::ALL {
                    for auth in AUTHS {
                        for gate in [false, true] {
                            for gate_auth in AUTHS {
                                for assume in [None, Some(true), Some(false)] {
                                    for remote in [false, true] {
                                        for remote_ok in [false, true] {
                                            n += 1;
                                            check(
                                                headless, max, risk, auth, gate, gate_auth, assume,
                                                remote, remote_ok,
                                            );
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(n, 2 * 3 * 3 * 6 * 2 * 6 * 3 * 2 * 2);
    }

    #[allow(clippy::too_many_arguments, clippy::fn_params_excessive_bools)]
    #[expect(
        clippy::too_many_lines,
        reason = "one check per policy rule in the documented order"
    )]
    fn check(
        headless: bool,
        max: Risk,
        risk: Risk,
        auth: Auth,
        gate: bool,
        gate_auth: Auth,
        assume: Option<bool>,
        remote: bool,
        remote_ok: bool,
    ) {
        let host = if remote { "10.1.2.3" } else { "127.0.0.1" };
        let mut s = session(headless, max, host);
        let risk_var = if risk == Risk::Destructive {
            "ALLOW_DESTRUCTIVE"
        } else {
            "ALLOW_MUTATING"
        };
        let risk_how = apply(&mut s, auth, risk_var, Grantable::Risk(risk));
        let gate_how = if gate {
            apply(
                &mut s,
                gate_auth,
                "ALLOW_PAYMENTS",
                Grantable::Gate("payments".into()),
            )
        } else {
            None
        };
        if remote_ok {
            s.grants.grant(
                Grantable::Remote,
                if headless {
                    GrantSource::Flag
                } else {
                    GrantSource::Prompt
                },
            );
        }
        let mut c = case(risk);
        if gate {
            c.gate = Some("payments".into());
        }
        c.assume = assume.map(|a| ("CI".to_owned(), a));
        let d = decide(&s, &c);
        let ctx = format!(
            "headless={headless} max={max} risk={risk} auth={auth:?} gate={gate} gate_auth={gate_auth:?} assume={assume:?} remote={remote} remote_ok={remote_ok} => {d:?}"
        );
        // the expected answer, rule by rule in the order of SPEC §1.4/§3.2
        if risk > max {
            assert!(
                matches!(&d, Decision::Skip(r) if r.contains("above the max risk")),
                "{ctx}"
            );
            return;
        }
        if assume == Some(false) {
            assert!(
                matches!(&d, Decision::Skip(r) if r.contains("assume")),
                "{ctx}"
            );
            return;
        }
        // headless skips with a reason naming `words`; the TUI asks `prompt`
        let expect = |words: &[&str], prompt: fn(&Prompt) -> bool| {
            if headless {
                assert!(
                    matches!(&d, Decision::Skip(r) if words.iter().all(|w| r.contains(w))),
                    "{ctx}"
                );
            } else {
                assert!(matches!(&d, Decision::NeedsPrompt(p) if prompt(p)), "{ctx}");
            }
        };
        // a remote HOST needs its grant for every case, readonly included
        if remote && !remote_ok {
            expect(&["--allow-remote"], |p| matches!(p, Prompt::Remote { .. }));
            return;
        }
        if risk > Risk::Readonly && risk_how.is_none() {
            let destructive = risk == Risk::Destructive;
            expect(
                &[risk_var, "--authorize"],
                if destructive {
                    |p| matches!(p, Prompt::Destructive { .. })
                } else {
                    |p| matches!(p, Prompt::Mutating { .. })
                },
            );
            return;
        }
        if gate && gate_how.is_none() {
            expect(&["gate payments"], |p| matches!(p, Prompt::Gate { .. }));
            return;
        }
        let Decision::Allowed(used) = &d else {
            panic!("{ctx}");
        };
        let mut want = Vec::new();
        if remote {
            want.push(Grantable::Remote);
        }
        if risk > Risk::Readonly {
            want.push(Grantable::Risk(risk));
            let u = used
                .iter()
                .find(|u| u.what == Grantable::Risk(risk))
                .expect("risk used");
            assert_eq!(Some(u.how), risk_how, "{ctx}");
            assert_eq!(u.variable.as_deref(), Some(risk_var), "{ctx}");
        }
        if gate {
            want.push(Grantable::Gate("payments".into()));
            let u = used
                .iter()
                .find(|u| u.what == Grantable::Gate("payments".into()))
                .expect("gate used");
            assert_eq!(Some(u.how), gate_how, "{ctx}");
        }
        assert_eq!(
            used.iter().map(|u| u.what.clone()).collect::<Vec<_>>(),
            want,
            "{ctx}"
        );
    }

    #[test]
    fn live_cases_of_the_tests_tree() {
        for headless in [true, false] {
            let mut s = session(headless, Risk::Readonly, "127.0.0.1");
            let c = CaseFacts {
                id: "ai/backend/tools/live/x".into(),
                live: true,
                ..CaseFacts::default()
            };
            let d = decide(&s, &c);
            if headless {
                assert!(matches!(&d, Decision::Skip(r) if r.contains("--allow-live")));
            } else {
                assert_eq!(
                    d,
                    Decision::NeedsPrompt(Prompt::Live { case: c.id.clone() })
                );
            }
            s.grants.grant(Grantable::Live, GrantSource::Flag);
            assert!(matches!(decide(&s, &c), Decision::Allowed(u) if u.len() == 1));
            // a non-live tests case needs nothing on a loopback HOST, and the
            // remote grant on a remote one
            let plain = CaseFacts {
                id: "x".into(),
                ..CaseFacts::default()
            };
            let s1 = session(headless, Risk::Readonly, "localhost:8080");
            assert_eq!(decide(&s1, &plain), Decision::Allowed(Vec::new()));
            let mut s2 = session(headless, Risk::Readonly, "example.com");
            if headless {
                assert!(
                    matches!(decide(&s2, &plain), Decision::Skip(r) if r.contains("--allow-remote"))
                );
            } else {
                assert!(matches!(
                    decide(&s2, &plain),
                    Decision::NeedsPrompt(Prompt::Remote { .. })
                ));
            }
            s2.grants.grant(Grantable::Remote, GrantSource::Flag);
            assert!(matches!(decide(&s2, &plain), Decision::Allowed(u) if u.len() == 1));
        }
    }

    #[test]
    fn a_risk_without_a_switch_variable_needs_a_flag() {
        let mut s = session(true, Risk::Destructive, "127.0.0.1");
        s.authorize.clear();
        let d = decide(&s, &case(Risk::Mutating));
        assert_eq!(
            d,
            Decision::Skip("mutating is not authorized: needs --authorize mutating".into())
        );
        // authorizing destructive does not authorize mutating
        s.grants
            .grant(Grantable::Risk(Risk::Destructive), GrantSource::Flag);
        assert!(matches!(
            decide(&s, &case(Risk::Mutating)),
            Decision::Skip(_)
        ));
        assert!(matches!(
            decide(&s, &case(Risk::Destructive)),
            Decision::Allowed(_)
        ));
    }

    #[test]
    fn a_refused_prompt_is_a_skip_and_never_asked_again() {
        let mut s = session(false, Risk::Destructive, "127.0.0.1");
        let c = case(Risk::Mutating);
        assert!(matches!(
            decide(&s, &c),
            Decision::NeedsPrompt(Prompt::Mutating { .. })
        ));
        s.grants.refuse(Grantable::Risk(Risk::Mutating));
        assert!(matches!(&decide(&s, &c), Decision::Skip(r) if r.contains("not granted")));
        // a URL of the case that is not loopback needs the remote grant, HOST or not
        let mut far = case(Risk::Readonly);
        far.remote_url = Some("http://some.host/".into());
        assert_eq!(
            decide(&s, &far),
            Decision::NeedsPrompt(Prompt::Remote {
                host: "http://some.host/".into()
            })
        );
    }

    #[test]
    fn a_group_runs_only_when_every_member_may() {
        let prompt = |c: &str| {
            Decision::NeedsPrompt(Prompt::Destructive {
                case: c.into(),
                host: "h".into(),
            })
        };
        let mut ds = vec![
            ("A".to_owned(), Decision::Allowed(Vec::new())),
            (
                "B".to_owned(),
                Decision::Skip("mutating is not authorized".into()),
            ),
            ("C".to_owned(), prompt("C")),
            ("D".to_owned(), Decision::Allowed(Vec::new())),
            ("E".to_owned(), prompt("E")),
        ];
        decide_groups(&mut ds, &[Some(0), Some(0), Some(0), None, Some(1)]);
        for i in [0, 2] {
            assert!(
                matches!(&ds[i].1, Decision::Skip(r) if r.contains("run_together: B will not run")),
                "{:?}",
                ds[i]
            );
        }
        assert_eq!(ds[3].1, Decision::Allowed(Vec::new()));
        assert_eq!(ds[4].1, prompt("E"));
        // the strictest prompt first: a remote HOST before any case
        let mild = Decision::NeedsPrompt(Prompt::Mutating {
            case: "M".into(),
            host: "h".into(),
        });
        let far = Decision::NeedsPrompt(Prompt::Remote { host: "h".into() });
        let ds = vec![
            ("M".to_owned(), mild),
            ("E".to_owned(), prompt("E")),
            ("R".to_owned(), far),
        ];
        assert!(matches!(next_prompt(&ds), Some(Prompt::Remote { .. })));
        assert!(matches!(
            next_prompt(&ds[..2]),
            Some(Prompt::Destructive { .. })
        ));
        assert!(next_prompt(&[]).is_none());
    }

    #[test]
    fn prompt_grants_what_it_asks() {
        let p = Prompt::Destructive {
            case: "a".into(),
            host: "h".into(),
        };
        assert_eq!(p.grants(), Grantable::Risk(Risk::Destructive));
        assert_eq!(Grantable::Gate("g".into()).label(), "gate:g");
        assert_eq!(Risk::parse("mutating"), Some(Risk::Mutating));
        assert_eq!(Risk::parse("x"), None);
    }
}
