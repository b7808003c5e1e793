//! Small helpers the unit tests of every module share (compiled in test builds only).

/// Owned strings of `v`, for comparing with an argv or a list of ids.
pub fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| (*x).to_owned()).collect()
}
