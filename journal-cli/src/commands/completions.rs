//! `journal completions`: shell completions, printed.

use clap::{Args, CommandFactory};

use crate::Cli;
use crate::output::print;

/// `journal completions`: the shell.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  journal completions bash > ~/.local/share/bash-completion/completions/journal"
)]
pub struct Completions {
    /// The shell.
    pub shell: clap_complete::Shell,
}

impl Completions {
    /// Prints the completions; needs neither the config nor the journal.
    pub(super) fn run(&self) {
        let mut command = Cli::command();
        let mut out = Vec::new();
        clap_complete::generate(self.shell, &mut command, "journal", &mut out);
        print(&String::from_utf8_lossy(&out));
    }
}
