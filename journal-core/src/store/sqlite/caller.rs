//! Whether the writer's current job still has someone waiting for it: a long job (an
//! import of thousands of entries) asks between steps and stops when not, leaving its
//! savepoint to be rolled back. Interrupting its statement instead would roll back the
//! whole batch's transaction, other callers' writes with it.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    static WAITING: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs `f` as the job of the caller whose flag is `waiting`.
pub(super) fn serving<T>(waiting: Arc<AtomicBool>, f: impl FnOnce() -> T) -> T {
    WAITING.with(|w| *w.borrow_mut() = Some(waiting));
    let result = f();
    WAITING.with(|w| w.borrow_mut().take());
    result
}

/// `Err(interrupted)` once the current job's caller has stopped waiting; `Ok`
/// outside a job.
pub(super) fn check() -> rusqlite::Result<()> {
    let gone = WAITING.with(|w| {
        w.borrow()
            .as_ref()
            .is_some_and(|waiting| !waiting.load(Ordering::Relaxed))
    });
    if gone {
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_INTERRUPT),
            Some("the request was dropped".into()),
        ));
    }
    Ok(())
}
