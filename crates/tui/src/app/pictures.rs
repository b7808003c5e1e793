//! The pictures on screen reach the terminal's protocol: [`Graphics`] answers
//! `Published::Shown` (what the screen shown holds, published by the App after
//! each change) by encoding the new ones once per file and area and forgetting
//! those gone.

use super::pane::{Component, Ctx, Published};
use crate::graphics::Graphics;

impl Component for Graphics {
    fn subscribes(&self, e: &Published) -> bool {
        matches!(e, Published::Shown(_))
    }

    fn on_event(&mut self, e: &Published, _: &mut Ctx) {
        if let Published::Shown(pictures) = e {
            self.show(pictures);
        }
    }
}
