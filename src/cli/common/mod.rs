//! Shared CLI pieces, one room per concern: the input and generation flags (`input`), the UI
//! (`ui`), the findings' reports (`report`) and the outcome and errors (`outcome`). Commands import
//! them from here.

mod input;
mod outcome;
mod report;
mod ui;

pub use input::*;
pub use outcome::*;
pub use report::*;
pub use ui::*;
