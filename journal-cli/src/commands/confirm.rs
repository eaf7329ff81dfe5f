//! The owner's password (and second-factor code) for the steps a server wants
//! confirmed: making an access token, turning the second factor on, changing the e-mail
//! address or the password, deleting the account. A login made within the last few
//! minutes is enough on its own, so each step is tried first as it is, and the password
//! and code are asked for only when the server says it needs them.

use std::future::Future;

use super::prompt::ask_code;
use crate::error::{CliError, Result};
use crate::text;

/// The proof a step is sent with.
#[derive(Clone, Default)]
pub(super) struct Confirmation {
    /// The current password.
    pub password: Option<String>,
    /// A second-factor or recovery code.
    pub totp: Option<String>,
}

/// What a refusal asks for, read from the core's messages (see
/// `journal_core::Error::RecentLoginRequired`).
enum Wanted {
    Password,
    Code,
}

fn wanted(error: &CliError) -> Option<Wanted> {
    let message = match error {
        CliError::Forbidden(m) | CliError::Auth(m) => m,
        _ => return None,
    };
    if message.contains("also needs its second factor") {
        Some(Wanted::Code)
    } else if message.contains("confirm it is you") {
        Some(Wanted::Password)
    } else {
        None
    }
}

/// Runs `step` with `given` (a password already read, say), asking on the terminal for
/// what the server still wants, at most once each.
pub(super) async fn confirmed<T, F, Fut>(given: Confirmation, mut step: F) -> Result<T>
where
    F: FnMut(Confirmation) -> Fut,
    Fut: Future<Output = Result<T>>,
{
    let mut proof = given;
    loop {
        let error = match step(proof.clone()).await {
            Err(e) => e,
            done => return done,
        };
        let ask = |what: &str| -> Result<()> {
            if text::interactive() {
                return Ok(());
            }
            Err(CliError::Forbidden(format!(
                "the server wants {what} for this step, and this is not a terminal to ask on; \
                 log in again (journal login) and run it right away"
            )))
        };
        match wanted(&error) {
            Some(Wanted::Password) if proof.password.is_none() => {
                ask("your password")?;
                proof.password = Some(text::ask_password("Password (to confirm it is you): ")?);
            }
            Some(Wanted::Code) if proof.totp.is_none() => {
                ask("a two-factor code")?;
                proof.totp = Some(ask_code("Code from the app (or a recovery code): ")?);
            }
            _ => return Err(error),
        }
    }
}
