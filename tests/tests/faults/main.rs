//! Faults and durability, end to end: the real `journal-server` killed with SIGKILL while
//! clients write, stopped with SIGTERM under load, cut off from PostgreSQL, and left with a
//! full disk or a file it may not write. What the server acknowledged must survive; what
//! it could not do must be a clear 503; the SQLite file must pass `integrity_check`.

mod support;

mod crash;
mod disk;
mod outage;
mod shutdown;
mod stalls;
