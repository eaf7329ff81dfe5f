//! The SQLite connections: one writer thread with group commit, and reader threads.
//!
//! Every SQLite call runs on one of these threads, never on the async reactor. A
//! waiting call is a queued closure, not a parked thread, so the thread count and the
//! memory stay fixed however many requests wait. WAL lets the readers run beside the
//! writer; `:memory:` has no readers (every connection would be its own database), so
//! its reads go to the writer thread too.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::Connection;

use super::cache::{ReadCache, Touched};
use super::checkpoint::Checkpointer;
use super::errors::map_err;
use super::lock::lock;
use super::other_writers::OtherWriters;
use super::{fts_batch, fts_merge};
use crate::error::{StoreError, StoreResult};
use crate::metrics::{self, PoolState};

/// Most jobs committed together.
const MAX_BATCH: usize = 256;

/// Work for the writer thread. It runs inside the batch's transaction (or is told why
/// the transaction could not begin) and returns what it touched (for the cache) and
/// what to do once the batch's commit is known: reply to its caller.
type Job = Box<dyn FnOnce(Result<&Connection, &str>) -> (Touched, Reply) + Send>;
/// Called with the commit's outcome (`None`: committed).
type Reply = Box<dyn FnOnce(Option<&str>) + Send>;

/// Work for a reader thread.
type ReadJob = Box<dyn FnOnce(&Connection) + Send>;

/// The writer and reader threads of one database, and the read cache the writer keeps
/// current.
pub(super) struct Pool {
    /// Jobs for the writer thread, which owns the one writing connection. Taken out
    /// when the pool is dropped, which lets the thread finish and close the connection.
    writer: Option<Sender<Job>>,
    /// The writer thread, joined on drop so the database is closed before we return.
    writer_thread: Option<std::thread::JoinHandle<()>>,
    /// Told by the writer of every commit, before any reply (see the cache).
    cache: Arc<ReadCache>,
    /// The reader threads, each of which owns one reader connection. `None` for
    /// `:memory:`: there, reads go to the writer thread.
    readers: Option<Readers>,
    /// Reader threads of their own for searches, so that however many searches queue,
    /// lists, profiles and the feed find the other readers free. `None` for
    /// `:memory:`.
    searchers: Option<Readers>,
    /// Set when the file could only be opened for reading: why writes are refused.
    read_only: Option<String>,
    /// The writer's jobs waiting and running, for the metrics.
    writer_load: Arc<Load>,
}

/// How many jobs of a set of threads wait for one and how many run, for the metrics.
#[derive(Debug, Default)]
struct Load {
    waiting: AtomicUsize,
    running: AtomicUsize,
}

impl Load {
    /// A job is queued: it waits until [`Queued::start`], or until it is dropped unrun
    /// (its caller's send failed, or the thread that would have run it stopped).
    fn queue(self: &Arc<Load>) -> Queued {
        self.waiting.fetch_add(1, Ordering::Relaxed);
        Queued {
            load: Some(self.clone()),
            since: Instant::now(),
        }
    }

    fn state(&self, name: &'static str, size: usize) -> PoolState {
        let running = self.running.load(Ordering::Relaxed);
        PoolState {
            name,
            size,
            idle: size.saturating_sub(running),
            waiting: self.waiting.load(Ordering::Relaxed),
        }
    }
}

/// A job waiting for a thread, counted in its [`Load`] until it starts or is dropped.
struct Queued {
    /// Taken when the job starts.
    load: Option<Arc<Load>>,
    since: Instant,
}

impl Queued {
    /// The job starts on a thread of `pool`: it runs until the returned guard is
    /// dropped.
    fn start(mut self, pool: &'static str) -> Running {
        let load = self.load.take().expect("a queued job starts once");
        load.waiting.fetch_sub(1, Ordering::Relaxed);
        load.running.fetch_add(1, Ordering::Relaxed);
        metrics::waited(pool, self.since.elapsed());
        Running(load)
    }
}

impl Drop for Queued {
    fn drop(&mut self) {
        if let Some(load) = self.load.take() {
            load.waiting.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// A job running on a thread, counted in its [`Load`] until dropped.
struct Running(Arc<Load>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Closing the channel ends the writer loop once queued jobs are done; joining
        // waits for its connection to close (SQLite checkpoints the WAL then).
        // Readers first, so that the writer's connection is the last one closed.
        self.readers.take();
        self.searchers.take();
        self.writer.take();
        if let Some(thread) = self.writer_thread.take() {
            let _ = thread.join();
        }
    }
}

impl Pool {
    /// Starts the threads: one for `writer` (already configured and migrated), one for
    /// each of `readers` and one for each of `searchers`; with no readers, reads and
    /// searches go to the writer. With `checkpoints`, a connection checkpoints the WAL
    /// after commits on a thread of its own (the writer's must not checkpoint). With
    /// `read_only` (the reason), writes are refused up front.
    pub(super) fn start(
        writer: Connection,
        readers: Vec<Connection>,
        searchers: Vec<Connection>,
        checkpoints: Option<Connection>,
        read_only: Option<String>,
    ) -> StoreResult<Pool> {
        let (sender, jobs) = std::sync::mpsc::channel();
        let cache = Arc::new(ReadCache::default());
        let commits = cache.clone();
        let checkpointer = checkpoints.map(Checkpointer::start).transpose()?;
        let writer_thread = std::thread::Builder::new()
            .name("journal-sqlite-writer".into())
            .spawn(move || writer_loop(writer, jobs, commits, checkpointer))
            .map_err(StoreError::internal)?;
        Ok(Pool {
            writer: Some(sender),
            writer_thread: Some(writer_thread),
            cache,
            readers: Readers::start("sqlite-reader", readers)?,
            searchers: Readers::start("sqlite-searcher", searchers)?,
            read_only,
            writer_load: Arc::default(),
        })
    }

    /// Each set of threads as it is now: the writer, the readers and the searchers.
    pub(super) fn states(&self) -> Vec<PoolState> {
        let mut states = vec![self.writer_load.state(WRITER, 1)];
        states.extend(self.readers.iter().map(Readers::state));
        states.extend(self.searchers.iter().map(Readers::state));
        states
    }

    /// The read cache, told of every commit.
    pub(super) fn cache(&self) -> &Arc<ReadCache> {
        &self.cache
    }

    /// Runs `f` on a reader thread (the writer's, in memory).
    pub(super) async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> StoreResult<T> {
        match &self.readers {
            Some(readers) => readers.run(crate::budget::limit(), f).await,
            None => {
                self.write_unchecked(move |c| Ok((f(c)?, Touched::nothing())))
                    .await
            }
        }
    }

    /// Runs the search `f` on a searcher thread (the writer's, in memory), stopped
    /// past `deadline` (or the request's own limit, if shorter).
    pub(super) async fn search<T: Send + 'static>(
        &self,
        deadline: Duration,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> StoreResult<T> {
        match &self.searchers {
            Some(searchers) => {
                searchers
                    .run(Some(crate::budget::limit_or(deadline)), f)
                    .await
            }
            None => self.read(f).await,
        }
    }

    /// Runs `f` on the writer thread in its own savepoint; resolves once the batch it
    /// ran in has committed. The cache takes it that `f` may have touched anything.
    pub(super) async fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> StoreResult<T> {
        self.write_touching(move |c| Ok((f(c)?, Touched::everything())))
            .await
    }

    /// [`Pool::write`] for a job that says what it touched: the cache keeps every
    /// value that does not depend on it.
    pub(super) async fn write_touching<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<(T, Touched)> + Send + 'static,
    ) -> StoreResult<T> {
        if let Some(why) = &self.read_only {
            return Err(StoreError::unavailable(why.clone()));
        }
        self.write_unchecked(f).await
    }

    /// [`Pool::write_touching`] without the read-only check: for reads of `:memory:`.
    async fn write_unchecked<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<(T, Touched)> + Send + 'static,
    ) -> StoreResult<T> {
        let (tx, rx) = tokio::sync::oneshot::channel::<StoreResult<T>>();
        let waiting = Arc::new(AtomicBool::new(true));
        let _dropped = GaveUp(waiting.clone());
        let queued = self.writer_load.queue();
        let job: Job = Box::new(move |conn| {
            // Running until its batch's commit is known (the reply).
            let running = queued.start(WRITER);
            let (result, touched) = match conn {
                Ok(conn) => {
                    match super::caller::serving(waiting, || in_savepoint(conn, f)).map_err(map_err)
                    {
                        Ok((value, touched)) => (Ok(value), touched),
                        Err(e) => (Err(e), Touched::nothing()),
                    }
                }
                Err(why) => (
                    Err(StoreError::unavailable(format!(
                        "cannot begin a write: {why}"
                    ))),
                    Touched::nothing(),
                ),
            };
            let reply: Reply = Box::new(move |commit_failure: Option<&str>| {
                let _running = running;
                let outcome = match (result, commit_failure) {
                    (Err(e), _) => Err(e),
                    (Ok(_), Some(why)) => {
                        Err(StoreError::unavailable(format!("commit failed: {why}")))
                    }
                    (Ok(value), None) => Ok(value),
                };
                let _ = tx.send(outcome);
            });
            (touched, reply)
        });
        self.writer
            .as_ref()
            .and_then(|w| w.send(job).ok())
            .ok_or_else(|| StoreError::internal("the SQLite writer thread has stopped"))?;
        rx.await
            .map_err(|_| StoreError::internal("the SQLite writer thread dropped a job"))?
    }
}

/// The writer thread's name in the metrics' `pool` label.
const WRITER: &str = "sqlite-writer";

/// Threads that each own one read-only-use connection and take jobs from one queue.
struct Readers {
    /// Taken out on drop, which ends the threads' loops.
    jobs: Option<Sender<ReadJob>>,
    threads: Vec<std::thread::JoinHandle<()>>,
    /// The metrics' `pool` label: `sqlite-reader` or `sqlite-searcher`.
    name: &'static str,
    load: Arc<Load>,
}

impl Readers {
    /// A thread for each of `connections`, named for `name` (the metrics' `pool`
    /// label); `None` when there are none.
    fn start(name: &'static str, connections: Vec<Connection>) -> StoreResult<Option<Readers>> {
        if connections.is_empty() {
            return Ok(None);
        }
        let (sender, jobs) = std::sync::mpsc::channel::<ReadJob>();
        let jobs = Arc::new(Mutex::new(jobs));
        let threads = connections
            .into_iter()
            .enumerate()
            .map(|(i, conn)| {
                let jobs = jobs.clone();
                std::thread::Builder::new()
                    .name(format!("journal-{name}-{i}"))
                    .spawn(move || reader_loop(conn, jobs))
            })
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(StoreError::internal)?;
        Ok(Some(Readers {
            jobs: Some(sender),
            threads,
            name,
            load: Arc::default(),
        }))
    }

    fn state(&self) -> PoolState {
        self.load.state(self.name, self.threads.len())
    }

    /// Runs `f` on one of the threads. SQLite interrupts it once it has run for
    /// `limit`, or as soon as its caller stops waiting (the request was dropped: past
    /// the server's deadline, or its client gone), so a read never goes on working for
    /// an answer nobody will get.
    async fn run<T: Send + 'static>(
        &self,
        limit: Option<Duration>,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> StoreResult<T> {
        let (tx, rx) = tokio::sync::oneshot::channel::<StoreResult<T>>();
        let waiting = Arc::new(AtomicBool::new(true));
        let _dropped = GaveUp(waiting.clone());
        let (queued, pool) = (self.load.queue(), self.name);
        let job: ReadJob = Box::new(move |conn| {
            let _running = queued.start(pool);
            if !waiting.load(Ordering::Relaxed) {
                return;
            }
            // The clock starts when the read does, not while it waits for a thread.
            let deadline = limit.map(|limit| Instant::now() + limit);
            // Asked every few thousand virtual-machine steps: cheap beside the query.
            conn.progress_handler(
                4096,
                Some(move || {
                    !waiting.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() > d)
                }),
            );
            let result = f(conn);
            conn.progress_handler(0, None::<fn() -> bool>);
            // A read stopped between its BEGIN and its end must not leave the next read
            // inside its transaction.
            if !conn.is_autocommit() {
                let _ = conn.execute_batch("ROLLBACK");
            }
            let _ = tx.send(result.map_err(map_err));
        });
        self.jobs
            .as_ref()
            .and_then(|jobs| jobs.send(job).ok())
            .ok_or_else(|| StoreError::internal("the SQLite reader threads have stopped"))?;
        rx.await
            .map_err(|_| StoreError::internal("an SQLite read failed without an answer"))?
    }
}

/// Clears its flag when dropped: the future waiting for a read is gone, finished or
/// not (a finished read no longer looks at the flag).
struct GaveUp(Arc<AtomicBool>);

impl Drop for GaveUp {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

impl Drop for Readers {
    fn drop(&mut self) {
        self.jobs.take();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// A reader thread: runs read jobs on its connection, one at a time, until the store
/// is dropped. Threads of their own rather than tokio's blocking pool: four threads
/// serve every read, where the pool grew a thread (with its stack and allocator
/// memory) for each read that found none idle.
fn reader_loop(conn: Connection, jobs: Arc<Mutex<Receiver<ReadJob>>>) {
    loop {
        let job = match lock(&jobs).recv() {
            Ok(job) => job,
            Err(_) => break,
        };
        // A panicking read loses only its own reply (its caller sees an error); the
        // thread and its connection serve on.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(&conn)));
    }
}

/// The writer thread: group commit. Takes every job already queued (up to `MAX_BATCH`),
/// runs each in its own savepoint inside one transaction, commits once, and only then
/// replies. Under concurrent writes one `fsync` serves many of them; an acknowledged
/// write has always reached the disk; a failing job rolls back only its own savepoint.
fn writer_loop(
    conn: Connection,
    jobs: Receiver<Job>,
    cache: Arc<ReadCache>,
    checkpointer: Option<Checkpointer>,
) {
    // However this ends (the store dropped, or a job that panicked, leaving its
    // transaction unfinished), the cache stops serving: nothing would tell it of later
    // writes.
    struct StopCache(Arc<ReadCache>);
    impl Drop for StopCache {
        fn drop(&mut self) {
            self.0.writer_stopped();
        }
    }
    let _stop = StopCache(cache.clone());
    // Set after a commit: the search index may have segments to merge when idle.
    let mut merges_due = false;
    // When the last batch or merge step ended.
    let mut idle_since = Instant::now();
    let mut others = OtherWriters::new(&conn);
    loop {
        if others.wrote(&conn) {
            // Another process wrote: nothing cached can be trusted to be current.
            cache.committed(&Touched::everything(), Vec::new());
        }
        let mut wait = others.due_in();
        if merges_due {
            wait = wait.min(fts_merge::IDLE.saturating_sub(idle_since.elapsed()));
        }
        let first = match jobs.recv_timeout(wait) {
            Ok(job) => job,
            Err(RecvTimeoutError::Timeout) => {
                if merges_due && idle_since.elapsed() >= fts_merge::IDLE {
                    merges_due = fts_merge::step(&conn);
                    idle_since = Instant::now();
                    if merges_due && let Some(checkpointer) = &checkpointer {
                        checkpointer.committed();
                    }
                }
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        metrics::write_batch(batch.len());
        if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
            let why = e.to_string();
            for job in batch {
                job(Err(&why)).1(Some(&why));
            }
            continue;
        }
        let mut touched = Touched::nothing();
        let replies: Vec<Reply> = batch
            .into_iter()
            .map(|job| {
                // On some errors (a full disk, an I/O error) SQLite rolls the whole
                // transaction back itself: a job run after that would commit on its
                // own, and be told it failed when the batch's commit does.
                let (t, reply) = if conn.is_autocommit() {
                    job(Err("the batch's transaction was rolled back"))
                } else {
                    job(Ok(&conn))
                };
                touched.add(t);
                reply
            })
            .collect();
        // Before the commit: no reader sees the batch yet, so every page found was
        // read without it.
        let mut carried = cache.carried(&touched);
        let outcome = commit(&conn);
        let failure = outcome.err();
        merges_due |= failure.is_none();
        if failure.is_some() {
            carried.clear(); // nothing was written to carry them through
        }
        // Before any reply: a client told its write succeeded must not then read a
        // cached value from before it.
        cache.committed(&touched, carried);
        for reply in replies {
            reply(failure.as_deref());
        }
        idle_since = Instant::now();
        if let Some(checkpointer) = &checkpointer {
            checkpointer.committed();
            checkpointer.restart_if_due(&conn);
        }
    }
    // Every store handle is gone. The checkpointer's connection closes last, and
    // closing the last connection checkpoints the WAL.
    drop(conn);
    drop(checkpointer);
}

/// Indexes the batch's new entries for search and commits the batch, or rolls it back.
fn commit(conn: &Connection) -> Result<(), String> {
    // A transaction SQLite already rolled back is not to be indexed in autocommit:
    // the COMMIT then fails and every job of the batch is told so.
    let indexed = if conn.is_autocommit() {
        Ok(())
    } else {
        fts_batch::index_pending(conn)
    };
    indexed
        .and_then(|()| conn.execute_batch("COMMIT"))
        .map_err(|e| {
            let _ = conn.execute_batch("ROLLBACK");
            e.to_string()
        })
}

/// Runs `f` in a savepoint so that its failure undoes only its own changes.
fn in_savepoint<T>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.execute_batch("SAVEPOINT job")?;
    match f(conn) {
        Ok(value) => {
            conn.execute_batch("RELEASE job")?;
            Ok(value)
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK TO job; RELEASE job");
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::budget::{QueryBudget, scope};

    /// Never ends on its own.
    const ENDLESS: &str =
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n";

    /// A pool with one reader, so a read that went on running would hold it for good.
    fn one_reader() -> (tempfile::TempDir, Pool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.db");
        let writer = Connection::open(&path).unwrap();
        let reader = Connection::open(&path).unwrap();
        let pool = Pool::start(writer, vec![reader], Vec::new(), None, None).unwrap();
        (dir, pool)
    }

    /// The reader is free, and outside any transaction (BEGIN would fail inside one).
    async fn reader_answers(pool: &Pool) {
        let answer = tokio::time::timeout(
            Duration::from_secs(5),
            pool.read(|c| {
                c.execute_batch("BEGIN")?;
                let seven = c.query_row("SELECT 7", [], |r| r.get::<_, i64>(0));
                c.execute_batch("COMMIT")?;
                seven
            }),
        )
        .await;
        assert_eq!(answer.expect("the reader is free").unwrap(), 7);
    }

    #[tokio::test]
    async fn a_read_whose_request_was_dropped_is_stopped() {
        let (_dir, pool) = one_reader();
        let dropped = tokio::time::timeout(
            Duration::from_millis(100),
            pool.read(|c| c.query_row(ENDLESS, [], |r| r.get::<_, i64>(0))),
        )
        .await;
        assert!(dropped.is_err(), "the endless read was still running");
        reader_answers(&pool).await;
    }

    #[tokio::test]
    async fn a_read_past_its_request_limit_is_stopped_as_unavailable() {
        let (_dir, pool) = one_reader();
        let budget = QueryBudget::new(Duration::from_millis(50), Duration::from_secs(60));
        let read = scope(
            budget,
            pool.read(|c| {
                c.execute_batch("BEGIN")?;
                c.query_row(ENDLESS, [], |r| r.get::<_, i64>(0))
            }),
        );
        let answer = tokio::time::timeout(Duration::from_secs(5), read)
            .await
            .expect("stopped at the limit");
        assert!(
            matches!(answer, Err(StoreError::Unavailable(_))),
            "{answer:?}"
        );
        reader_answers(&pool).await;
    }
}
