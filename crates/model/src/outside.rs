//! Cases outside the tests tree (SPEC §1.1a): the scope they are given, and the
//! static read of a test config's text (`js`). The store finds the configs and
//! the cases (`testdeck_core::workspace::outside`).

pub mod js;

/// The first folder of every outside case's scope below `temp/`.
pub const SCOPE_PREFIX: &str = "temp/outside";

/// Whether a scope is an outside case's (`temp/outside` or below it).
pub fn is_outside_scope(scope: &str) -> bool {
    scope == SCOPE_PREFIX
        || scope
            .strip_prefix(SCOPE_PREFIX)
            .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_scopes_are_the_prefix_and_below() {
        assert!(is_outside_scope("temp/outside"));
        assert!(is_outside_scope("temp/outside/web"));
        assert!(!is_outside_scope("temp/outsider"));
        assert!(!is_outside_scope("temp"));
    }
}
