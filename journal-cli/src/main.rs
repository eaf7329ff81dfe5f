//! `journal`: parse the command line, run it, exit with its code.

fn main() {
    std::process::exit(journal_cli::main_exit_code());
}
