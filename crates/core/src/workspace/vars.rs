//! `${VAR}` resolution is the model's ([`testdeck_model::vars`], re-exported here);
//! the store adds the real process environment.

pub use testdeck_model::vars::*;

/// The real process environment, as an [`Env`].
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}
