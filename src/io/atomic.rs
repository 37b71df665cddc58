//! Crash-safe file writing: write a temporary file beside the target, flush it to disk,
//! then rename it over the target (and, on Unix, flush the directory entry). Every file
//! the tool writes goes through here (`tests/reliability.rs` checks the sources).

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes the temporary files of concurrent writes within one process.
static NEXT_TEMPORARY: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically: a killed process leaves either the old file or
/// the new one, never a truncated mix. Creates missing parent directories.
///
/// # Errors
/// Any I/O error creating the directory, writing or renaming.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// [`write_atomic`] for content that `fill` streams into a buffered temporary file, so
/// large exports never sit in memory whole.
///
/// # Errors
/// Any I/O error creating the directory, of `fill`, writing or renaming.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let unique = NEXT_TEMPORARY.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.tmp{}-{unique}", std::process::id()));
    let result = (|| {
        let mut f = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
        fill(&mut f)?;
        let f = f.into_inner().map_err(std::io::IntoInnerError::into_error)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        // Make the rename itself durable (a crash could otherwise lose the new entry).
        #[cfg(unix)]
        std::fs::File::open(dir)?.sync_all()?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Creates `path` holding `bytes` only if no file of that name exists (one atomic
/// create-new): `Ok(false)` if one does. For lock files; creates missing parent
/// directories.
///
/// # Errors
/// Any I/O error but the file existing.
pub fn create_new(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    match std::fs::OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(mut f) => {
            f.write_all(bytes)?;
            f.sync_all()?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_leaves_no_temporary() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sub/x.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(p.parent().unwrap()).unwrap().count(), 1);
    }
}
