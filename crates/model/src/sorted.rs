//! Merging two lists sorted the same way: the one home of the merge that the
//! history (runs that come in together) and the cockpit's run list (the runs a
//! change touched) both make, in one pass instead of an insert each.

use std::cmp::Ordering;

/// `old` and `new`, both sorted by `order`, as one sorted list; on a tie the
/// element of `old` comes first. `placed` is told the index each element of
/// `new` takes in the result, in order.
pub fn merge<T>(
    old: Vec<T>,
    new: Vec<T>,
    order: impl Fn(&T, &T) -> Ordering,
    mut placed: impl FnMut(usize),
) -> Vec<T> {
    let mut out = Vec::with_capacity(old.len() + new.len());
    let mut old = old.into_iter().peekable();
    let mut new = new.into_iter().peekable();
    loop {
        let from_new = match (old.peek(), new.peek()) {
            (Some(x), Some(y)) => order(y, x) == Ordering::Less,
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (None, None) => break,
        };
        if from_new {
            placed(out.len());
            out.extend(new.next());
        } else {
            out.extend(old.next());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn merges_in_order_old_first_on_ties_and_says_where_new_went() {
        let mut at = Vec::new();
        let out = super::merge(vec![1, 3, 5], vec![0, 3, 6], Ord::cmp, |i| at.push(i));
        assert_eq!(out, [0, 1, 3, 3, 5, 6]);
        assert_eq!(at, [0, 3, 5]);
    }
}
