//! What the command line prints on stdout, through one writer: a reader that stops early
//! (`attention-harness contract project FILE | head -1`) ends the printing, not the process.
//!
//! `println!` panics on a broken pipe. The harness cannot take the Unix default instead (SIGPIPE
//! ends the process) because it writes to pipes of its own to Chromium, and because a process
//! killed by a signal would skip the `Drop`s that end Chromium and the other children by pid. So
//! [`outln!`](crate::outln) and [`out!`](crate::out) print through [`write`]: on a broken pipe the
//! reader is gone, later output is dropped quietly and the command finishes as it would have, exit
//! code unchanged; any other write error is said once on stderr and [`failed`] turns a success into
//! exit 1 (an output that was cut short must not pass for a whole one).

use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// The reader closed its end: nothing more is printed.
static READER_GONE: AtomicBool = AtomicBool::new(false);
/// A write failed for another reason than a closed reader (a full disk, a closed descriptor).
static FAILED: AtomicBool = AtomicBool::new(false);

/// Prints `args` on stdout, unless an earlier write found the reader gone or failed.
pub fn write(args: std::fmt::Arguments<'_>) {
    if live() {
        settle(std::io::stdout().lock().write_fmt(args));
    }
}

/// Prints `text` and a newline through [`write`] (the library's own printing, where the binary
/// uses [`outln!`](crate::outln)).
pub fn line(text: impl std::fmt::Display) {
    write(format_args!("{text}\n"));
}

/// Flushes stdout (a line printed without its newline, a prompt), with the same rules as [`write`].
pub fn flush() {
    if live() {
        settle(std::io::stdout().lock().flush());
    }
}

fn live() -> bool {
    !READER_GONE.load(Ordering::Relaxed) && !FAILED.load(Ordering::Relaxed)
}

/// Records how a write ended: a broken pipe silences stdout, another error is said once.
fn settle(result: std::io::Result<()>) {
    match result {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::BrokenPipe => READER_GONE.store(true, Ordering::Relaxed),
        Err(e) => {
            FAILED.store(true, Ordering::Relaxed);
            eprintln!("error: cannot write to stdout: {e}");
        }
    }
}

/// Whether a write failed for another reason than a reader that stopped early.
pub fn failed() -> bool {
    FAILED.load(Ordering::Relaxed)
}

/// `println!` through [`write`](crate::stdout::write): a closed reader stops the printing, not the process.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::stdout::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::stdout::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` through [`write`](crate::stdout::write): a closed reader stops the printing, not the process.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::stdout::write(format_args!($($arg)*))
    };
}
