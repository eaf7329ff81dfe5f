//! Where entry text and answers come from: arguments, standard input, the editor, the
//! terminal.

use std::io::{BufRead, IsTerminal, Read, Write};

use crate::error::{CliError, Result};

/// A title and body from text, and a short title for a long first line: the rules
/// journal-core's importers use, so `journal new` and an import title alike.
pub use journal_core::transfer::{short_title, split_title};

/// Reads all of standard input when it is not a terminal; `None` on a terminal.
pub fn piped_stdin() -> Result<Option<String>> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Ok(None);
    }
    let mut text = String::new();
    stdin
        .lock()
        .read_to_string(&mut text)
        .map_err(|e| CliError::other("cannot read standard input", e))?;
    Ok(Some(text))
}

/// Opens `$VISUAL` or `$EDITOR` (else `vi`) on `initial` and returns what was saved.
pub fn edit(initial: &str) -> Result<String> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.trim().is_empty()))
        .unwrap_or_else(|| "vi".into());
    let mut file = tempfile::Builder::new()
        .prefix("journal-")
        .suffix(".md")
        .tempfile()
        .map_err(|e| CliError::other("cannot create a temporary file for the editor", e))?;
    file.write_all(initial.as_bytes())
        .and_then(|_| file.flush())
        .map_err(|e| CliError::other("cannot write the temporary file", e))?;
    let path = file.path().to_owned();
    // Through the shell, so EDITOR may carry arguments ("code --wait").
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("journal-editor")
        .arg(&path)
        .status()
        .map_err(|e| CliError::other(format_args!("cannot start the editor {editor:?}"), e))?;
    if !status.success() {
        return Err(CliError::Aborted(format!(
            "the editor {editor:?} failed ({status}); nothing was changed"
        )));
    }
    std::fs::read_to_string(&path)
        .map_err(|e| CliError::other("cannot read back the edited file", e))
}

/// Keeps text the user typed in the editor in a file when what it was for failed, as
/// `git commit` does: in the data directory's `drafts/` (else the temporary directory).
/// Returns the file's path.
pub fn save_draft(text: &str) -> Option<std::path::PathBuf> {
    let name = format!(
        "entry-{}-{}.txt",
        chrono::Local::now().format("%Y%m%d-%H%M%S"),
        std::process::id()
    );
    let dirs = directories::ProjectDirs::from("", "", "journal")
        .map(|d| d.data_dir().join("drafts"))
        .into_iter()
        .chain([std::env::temp_dir()]);
    for dir in dirs {
        let path = dir.join(&name);
        if crate::private_files::create_dir_all(&dir).is_ok() && write_new(&path, text).is_ok() {
            return Some(path);
        }
    }
    None
}

/// Writes a new file (never an existing one or through a link), mode 0600.
fn write_new(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(text.as_bytes())
}

/// `error` with where the editor text was kept (or that it could not be).
pub fn keep_draft(error: CliError, text: &str) -> CliError {
    match save_draft(text) {
        Some(path) => error.with_note(format!(
            "your text is saved in {} (journal new < {} to try again)",
            path.display(),
            path.display()
        )),
        None => error.with_note("your text could not be saved"),
    }
}

/// True when both ends are terminals, so questions can be asked.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Asks a question on stderr and reads one line from the terminal.
pub fn ask(question: &str) -> Result<String> {
    eprint!("{question}");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| CliError::other("cannot read the answer", e))?;
    Ok(line.trim().to_owned())
}

/// Asks for a password without echo.
pub fn ask_password(prompt: &str) -> Result<String> {
    rpassword::prompt_password(prompt).map_err(|e| {
        CliError::Usage(format!(
            "cannot read a password from the terminal ({e}); use --password-stdin"
        ))
    })
}

/// Passwords from standard input, one per line, for `--password-stdin`.
pub struct StdinLines {
    lines: Vec<String>,
}

impl StdinLines {
    /// Reads every line of standard input.
    pub fn read() -> Result<StdinLines> {
        let mut text = String::new();
        std::io::stdin()
            .lock()
            .read_to_string(&mut text)
            .map_err(|e| CliError::other("cannot read standard input", e))?;
        let mut lines: Vec<String> = text
            .lines()
            .map(|l| l.trim_end_matches('\r').to_owned())
            .collect();
        lines.reverse();
        Ok(StdinLines { lines })
    }

    /// The next line, or a usage error naming what was expected.
    pub fn next(&mut self, what: &str) -> Result<String> {
        self.lines
            .pop()
            .filter(|l| !l.is_empty())
            .ok_or_else(|| CliError::Usage(format!("expected {what} on a line of standard input")))
    }
}
