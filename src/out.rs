//! Standard output and standard error of every subcommand, in one place that decides what a
//! failed write means (as ripgrep does):
//!
//! - stdout closed by the reader (`pisa regress | head`): the output ends quietly; later writes
//!   are dropped and the command finishes its work (reports, exit status) as it would have;
//! - any other stdout error (a full disk): one message on stderr and exit status 2;
//! - stderr errors are ignored: there is nowhere left to report them.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);
static FAILED: AtomicBool = AtomicBool::new(false);

/// Writes `s` to stdout and flushes it.
pub fn stdout(s: &str) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_all(s.as_bytes()).and_then(|()| o.flush()) {
        failed_write(&e);
    }
}

/// Records a failed write to stdout: a closed pipe silently, anything else with a message.
pub fn failed_write(e: &std::io::Error) {
    CLOSED.store(true, Ordering::Relaxed);
    if e.kind() != std::io::ErrorKind::BrokenPipe && !FAILED.swap(true, Ordering::Relaxed) {
        stderr(&format!("pisa: error: cannot write to stdout: {e}\n"));
    }
}

/// Writes `s` to stderr; errors are ignored.
pub fn stderr(s: &str) {
    let _ = std::io::stderr().lock().write_all(s.as_bytes());
}

/// True when a write to stdout failed for another reason than a closed pipe (exit status 2).
pub fn failed() -> bool {
    FAILED.load(Ordering::Relaxed)
}

/// `println!` to stdout through [`stdout`].
#[macro_export]
macro_rules! outln {
    () => { $crate::out::stdout("\n") };
    ($($t:tt)*) => { $crate::out::stdout(&format!("{}\n", format_args!($($t)*))) };
}

/// `print!` to stdout through [`stdout`].
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => { $crate::out::stdout(&format!($($t)*)) };
}

/// `eprintln!` that never panics.
#[macro_export]
macro_rules! errln {
    () => { $crate::out::stderr("\n") };
    ($($t:tt)*) => { $crate::out::stderr(&format!("{}\n", format_args!($($t)*))) };
}
