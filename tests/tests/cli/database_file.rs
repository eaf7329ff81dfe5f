//! The local database file: safe to open from several processes at once, private to
//! its owner, and readable when it is not writable.

use crate::*;

#[test]
fn three_commands_on_a_new_file_at_once_all_succeed_and_leave_it_usable() {
    for round in 0..8 {
        let sb = Sandbox::new();
        let children: Vec<_> = (0..3)
            .map(|i| {
                let mut cmd = sb.journal(&["new", &format!("w{i}")]);
                cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
                cmd.spawn().expect("spawn journal")
            })
            .collect();
        for child in children {
            check_ok(child.wait_with_output().expect("journal runs"));
        }
        let listed = json(&sb.ok(&["list", "--json"]));
        assert_eq!(
            listed["entries"].as_array().map(Vec::len),
            Some(3),
            "round {round}: {listed}"
        );
        // And the next open, by a fresh process, finds the schema complete.
        assert!(sb.ok(&["search", "w1"]).contains("w1"), "round {round}");
    }
}

#[cfg(unix)]
#[test]
fn the_database_and_its_wal_files_are_private_to_their_owner() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    new_entry(&sb, &["a private thought"]);
    // A second process keeps the WAL and shared-memory files open while we look.
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&sb.database), 0o600, "database");
    for suffix in ["-wal", "-shm"] {
        let path = sb.path(&format!("journal.db{suffix}"));
        if path.exists() {
            assert_eq!(mode(&path), 0o600, "{suffix}");
        }
    }
}

/// Runs `cmd` as the unprivileged user `nobody`, when this process may switch to it (as
/// root, with `setpriv`); root itself may write any file, so it cannot test this.
#[cfg(unix)]
fn as_nobody(cmd: &Command) -> Option<Command> {
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())?;
    let is_root = std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false);
    if !is_root {
        return None;
    }
    let mut wrapped = Command::new(setpriv);
    wrapped
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .stdin(Stdio::null());
    for (key, value) in cmd.get_envs() {
        match value {
            Some(v) => wrapped.env(key, v),
            None => wrapped.env_remove(key),
        };
    }
    Some(wrapped)
}

#[cfg(unix)]
#[test]
fn a_read_only_database_can_be_listed_and_refuses_writes_clearly() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    new_entry(&sb, &["kept for reading"]);
    // The journal's folder and file readable by all, writable by their owner only; a
    // home of its own for the reader, with a copy of the owner's settings.
    let open = |p: &std::path::Path, mode| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    open(sb.dir.path(), 0o755);
    for suffix in ["", "-wal", "-shm"] {
        let file = sb.path(&format!("journal.db{suffix}"));
        if file.exists() {
            open(&file, 0o644);
        }
    }
    let reader = tempfile::tempdir().unwrap();
    open(reader.path(), 0o777);
    let config = reader.path().join("journal.json");
    std::fs::copy(&sb.config, &config).unwrap();
    open(&config, 0o666);
    let mut list = sb.bare_with(&config, &["list"]);
    list.arg("--database")
        .arg(&sb.database)
        .env("HOME", reader.path());
    let Some(list) = as_nobody(&list) else {
        eprintln!("skipped: needs root and setpriv to run as another user");
        return;
    };
    let listed = succeed(list);
    assert!(listed.contains("kept for reading"), "{listed}");
    let mut write = sb.bare_with(&config, &["new", "more"]);
    write
        .arg("--database")
        .arg(&sb.database)
        .env("HOME", reader.path());
    let err = fail(as_nobody(&write).unwrap(), 1);
    assert!(err.contains("read-only"), "{err}");
    assert_eq!(sb.ok(&["list", "--json"]).matches("\"_id\"").count(), 1);
}

#[cfg(unix)]
#[test]
fn the_default_data_folder_and_exports_are_private_to_their_owner() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    // No --database: the journal goes to the platform data folder under HOME.
    succeed(sb.bare(&["new", "in the default place"]));
    let data = sb.dir.path().join("home/.local/share/journal");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data), 0o700, "data folder");
    let export = sb.path("export.json");
    sb.ok(&["export", "--output", export.to_str().unwrap()]);
    assert_eq!(mode(&export), 0o600, "export");
}

#[test]
fn the_cli_reads_the_server_s_database_variable_too() {
    let sb = Sandbox::new();
    let file = sb.path("from-server-variable.db");
    let mut cmd = sb.bare(&["new", "shared"]);
    cmd.env("JOURNAL_DATABASE_URL", &file);
    succeed(cmd);
    assert!(file.exists());
}

#[test]
fn an_unsupported_database_scheme_is_a_usage_error_naming_the_flag() {
    let sb = Sandbox::new();
    let err = fail(sb.bare(&["list", "--database", "mysql://x"]), USAGE);
    assert!(err.contains("--database") && err.contains("mysql"), "{err}");
    assert!(!sb.path("mysql:").exists());
}
