//! Asking the user: a value from its flag or else the terminal, checked by the core's
//! rules; new passwords; two-factor codes.

use crate::error::{CliError, Result};
use crate::text;

/// A rule an answer must meet, from journal-core (the server applies the same).
pub(super) type Rule = fn(&str) -> std::result::Result<(), journal_core::ValidationError>;

/// A value from its flag (checked at once), else asked on a terminal until it meets
/// `rule`: a wrong answer is said at once and asked again, not after every question.
pub(super) fn required(
    value: Option<String>,
    flag: &str,
    question: &str,
    rule: Rule,
) -> Result<String> {
    let explain = |e: journal_core::ValidationError| format!("{flag}: {}", e.message);
    match value.filter(|v| !v.trim().is_empty()) {
        Some(v) => {
            rule(&v).map_err(|e| CliError::Invalid(explain(e)))?;
            Ok(v)
        }
        None if text::interactive() => loop {
            let answer = text::ask(question)?;
            match rule(&answer) {
                Ok(()) => return Ok(answer),
                Err(e) => eprintln!("{}; try again", explain(e)),
            }
        },
        None => Err(CliError::Usage(format!("{flag} is required"))),
    }
}

pub(super) fn email_rule(v: &str) -> std::result::Result<(), journal_core::ValidationError> {
    journal_core::domain::Email::parse(v).map(|_| ())
}
pub(super) fn full_name_rule(v: &str) -> std::result::Result<(), journal_core::ValidationError> {
    journal_core::domain::FullName::parse(v).map(|_| ())
}
pub(super) fn nickname_rule(v: &str) -> std::result::Result<(), journal_core::ValidationError> {
    journal_core::domain::Nickname::parse(v).map(|_| ())
}

/// The password rules (length, not a common password), in words.
pub(super) fn check_new_password(password: &str) -> std::result::Result<(), String> {
    journal_core::domain::Password::parse(password)
        .map(|_| ())
        .map_err(|e| format!("the new password {}", e.message))
}

/// A new password from standard input, checked before anything is sent.
pub(super) fn new_password_from_line(lines: &mut text::StdinLines, what: &str) -> Result<String> {
    let password = lines.next(what)?;
    check_new_password(&password).map_err(CliError::Invalid)?;
    Ok(password)
}

/// A new password asked twice on the terminal; one that breaks a rule is refused as
/// soon as it is typed, and asked again.
pub(super) fn new_password_from_terminal() -> Result<String> {
    loop {
        let first = text::ask_password("New password: ")?;
        if let Err(why) = check_new_password(&first) {
            eprintln!("{why}; try again");
            continue;
        }
        let second = text::ask_password("New password again: ")?;
        if first != second {
            eprintln!("the two passwords differ; try again");
            continue;
        }
        return Ok(first);
    }
}

pub(super) fn stdin_or_terminal(password_stdin: bool) -> Result<Option<text::StdinLines>> {
    if password_stdin {
        return Ok(Some(text::StdinLines::read()?));
    }
    if !text::interactive() {
        return Err(CliError::Usage(
            "not on a terminal, so cannot ask for a password; use --password-stdin".into(),
        ));
    }
    Ok(None)
}

/// A code as typed: `123 456` is `123456`. Recovery codes keep their dashes.
pub(super) fn typed_code(code: &str) -> String {
    code.split_whitespace().collect()
}

/// Asks for a code on the terminal (shown as typed: it works once).
pub(super) fn ask_code(question: &str) -> Result<String> {
    loop {
        let code = typed_code(&text::ask(question)?);
        if !code.is_empty() {
            return Ok(code);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_lose_their_spaces() {
        assert_eq!(typed_code(" 123 456 "), "123456");
        assert_eq!(typed_code("abcde-fghij"), "abcde-fghij");
    }
}
