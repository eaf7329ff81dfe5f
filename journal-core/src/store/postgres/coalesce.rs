//! Questions that many requests ask at once, answered by one statement.
//!
//! Under load, dozens of requests ask PostgreSQL the same kind of cheap question at
//! the same moment: is this token still good, has anything been written since this
//! page was read. A statement costs the database a round trip and a backend's time
//! whatever it reads, so while one such statement runs, the questions that arrive
//! wait, and the next statement answers all of them together.
//!
//! An answer is never older than its question: a question is answered only by a
//! statement sent after it was asked, so a write committed before the question (a
//! revoked token, a new entry) is seen, exactly as by a statement of its own. With
//! one request at a time nothing waits: the question is sent at once, by a statement
//! of its own (see [`Coalesced::ask`]).
//!
//! The statements are sent by the requests themselves, not by a task of their own: the
//! first asker sends the first, and whoever sent one hands the next to a waiting asker.
//! An asker dropped midway (its client went away) hands its turn on, so no question
//! is left waiting for a statement nobody sends.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::oneshot;

use crate::error::{StoreError, StoreResult};
use crate::model::CacheCounts;

/// Most questions one statement answers; the rest wait for the next.
const MOST_PER_STATEMENT: usize = 256;

/// What a waiting asker is told: its answer, or that it sends the next statement.
enum Turn<V> {
    Answer(StoreResult<V>),
    Send,
}

/// One kind of question (`K`, answered by a `V`) and the askers waiting for a statement.
pub(super) struct Coalesced<K, V> {
    state: Mutex<State<K, V>>,
    /// Questions answered by a statement sent for another's question too.
    shared: AtomicU64,
    /// Statements sent.
    statements: AtomicU64,
}

struct State<K, V> {
    /// A statement is being sent or run.
    busy: bool,
    waiting: VecDeque<(K, oneshot::Sender<Turn<V>>)>,
}

impl<K: Clone, V> Default for Coalesced<K, V> {
    fn default() -> Self {
        Coalesced {
            state: Mutex::new(State {
                busy: false,
                waiting: VecDeque::new(),
            }),
            shared: AtomicU64::new(0),
            statements: AtomicU64::new(0),
        }
    }
}

impl<K: Clone, V> Coalesced<K, V> {
    /// The answer to `question`, from a statement sent after it was asked.
    ///
    /// `together` runs one statement for a batch of questions and returns their
    /// answers in order. A question that finds nobody else asking is answered by
    /// `alone` instead, with a statement planned for its own values: PostgreSQL plans a
    /// statement over arrays once for whatever they hold, a plan that serves a batch
    /// well and a single question worse than its own statement would. It still holds
    /// the turn, so the questions asked meanwhile wait and go together next.
    pub(super) async fn ask<A, FA, T, FT>(
        &self,
        question: K,
        alone: A,
        together: T,
    ) -> StoreResult<V>
    where
        A: Fn(K) -> FA,
        FA: Future<Output = StoreResult<V>>,
        T: Fn(Vec<K>) -> FT,
        FT: Future<Output = StoreResult<Vec<V>>>,
    {
        loop {
            let turn = {
                let mut state = self.lock();
                if state.busy {
                    let (tx, rx) = oneshot::channel();
                    state.waiting.push_back((question.clone(), tx));
                    Some(rx)
                } else {
                    state.busy = true;
                    None
                }
            };
            let Some(rx) = turn else {
                return self.send(question, &alone, &together).await;
            };
            let mut waiter = Waiter {
                owner: self,
                rx,
                done: false,
            };
            let told = (&mut waiter.rx).await;
            waiter.done = true;
            match told {
                Ok(Turn::Answer(answer)) => return answer,
                Ok(Turn::Send) => return self.send(question, &alone, &together).await,
                // The asker sending our statement was dropped midway: ask again.
                Err(_) => continue,
            }
        }
    }

    /// Sends one statement for `question` and the questions waiting, answers them,
    /// and hands the next turn on. Called holding the turn (`busy`).
    async fn send<A, FA, T, FT>(&self, question: K, alone: &A, together: &T) -> StoreResult<V>
    where
        A: Fn(K) -> FA,
        FA: Future<Output = StoreResult<V>>,
        T: Fn(Vec<K>) -> FT,
        FT: Future<Output = StoreResult<Vec<V>>>,
    {
        let _sending = Sending { owner: self };
        let (others, askers): (Vec<K>, Vec<_>) = {
            let mut state = self.lock();
            let n = state.waiting.len().min(MOST_PER_STATEMENT - 1);
            state.waiting.drain(..n).unzip()
        };
        self.statements.fetch_add(1, Ordering::Relaxed);
        if askers.is_empty() {
            return alone(question).await;
        }
        let mut questions = Vec::with_capacity(others.len() + 1);
        questions.push(question);
        questions.extend(others);
        self.shared
            .fetch_add(askers.len() as u64, Ordering::Relaxed);
        let expected = questions.len();
        match together(questions).await {
            Ok(answers) if answers.len() == expected => {
                let mut answers = answers.into_iter();
                let mine = answers.next();
                for (tx, a) in askers.into_iter().zip(answers) {
                    let _ = tx.send(Turn::Answer(Ok(a)));
                }
                mine.ok_or_else(|| StoreError::internal("a batch answered no question"))
            }
            Ok(answers) => {
                let e = StoreError::internal(format!(
                    "a batch of {expected} questions got {} answers",
                    answers.len()
                ));
                for tx in askers {
                    let _ = tx.send(Turn::Answer(Err(copy(&e))));
                }
                Err(e)
            }
            Err(e) => {
                for tx in askers {
                    let _ = tx.send(Turn::Answer(Err(copy(&e))));
                }
                Err(e)
            }
        }
    }

    /// Gives the turn to the first waiting asker still there, or frees it.
    fn hand_on(&self) {
        let mut state = self.lock();
        while let Some((_, tx)) = state.waiting.pop_front() {
            if tx.send(Turn::Send).is_ok() {
                return;
            }
        }
        state.busy = false;
    }

    /// How many questions rode on a statement sent for another's (`hits`), and how
    /// many statements were sent (`misses`).
    pub(super) fn counts(&self) -> CacheCounts {
        CacheCounts {
            hits: self.shared.load(Ordering::Relaxed),
            misses: self.statements.load(Ordering::Relaxed),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<K, V>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The turn to send, held by the asker sending: handed on when it is done or dropped.
struct Sending<'a, K: Clone, V> {
    owner: &'a Coalesced<K, V>,
}

impl<K: Clone, V> Drop for Sending<'_, K, V> {
    fn drop(&mut self) {
        self.owner.hand_on();
    }
}

/// A waiting asker. Dropped after it was handed the turn but before it took it, it
/// hands the turn on.
struct Waiter<'a, K: Clone, V> {
    owner: &'a Coalesced<K, V>,
    rx: oneshot::Receiver<Turn<V>>,
    done: bool,
}

impl<K: Clone, V> Drop for Waiter<'_, K, V> {
    fn drop(&mut self) {
        if !self.done && matches!(self.rx.try_recv(), Ok(Turn::Send)) {
            self.owner.hand_on();
        }
    }
}

/// The answer in `answers` that a batch statement's row is for, by the row's place
/// (`WITH ORDINALITY`, counted from 1) in the statement's arrays; `None` for a place
/// outside them.
pub(super) fn slot<T>(answers: &mut [T], at: i64) -> Option<&mut T> {
    usize::try_from(at - 1)
        .ok()
        .and_then(|i| answers.get_mut(i))
}

/// The same error again, for each asker a failed statement answered.
fn copy(e: &StoreError) -> StoreError {
    match e {
        StoreError::Conflict(conflict) => StoreError::Conflict(*conflict),
        StoreError::Unavailable(source) => StoreError::Unavailable(source.to_string().into()),
        StoreError::Internal(source) => StoreError::internal(source.to_string()),
        StoreError::Config(message) => StoreError::Config(message.clone()),
    }
}
