//! Files and folders the journal writes, readable by their owner only: a journal is
//! private, whatever the umask.

use std::io::Write;
use std::path::Path;

/// Creates `dir` and its missing parents; the ones it creates are mode 0700.
pub fn create_dir_all(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Writes `bytes` to `path`, creating it with mode 0600 (an existing file keeps its
/// mode).
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(bytes)
}

/// Writes `bytes` to `path` through a new file of mode 0600 renamed over it, so the
/// result is private even where a file of that name was readable by others, and never
/// half-written.
pub fn replace(path: &Path, mut bytes: &[u8]) -> std::io::Result<()> {
    replace_from(path, &mut bytes)
}

/// [`replace`] with the bytes copied from `from`, never whole in memory.
pub fn replace_from(path: &Path, from: &mut impl std::io::Read) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut file = tempfile::Builder::new()
        .prefix(".journal-")
        .tempfile_in(dir)?;
    std::io::copy(from, &mut file)?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}
