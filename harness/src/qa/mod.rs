//! What QA hands the harness, checked before a browser starts: a managed layout declaration from a
//! file (validated by the Host's own rules), the view a Host is opened at (viewport, DPR, browser
//! zoom), and the points and landmarks a command samples at. Every problem here is a usage error
//! the CLI reports with exit 2 within a second, with nothing opened.

pub mod declaration;
pub mod landmarks;
pub mod view;

pub use declaration::{DeclarationError, HostProblem, LayoutFile};
pub use view::{View, ViewArgs, ViewError};
