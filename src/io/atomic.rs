//! Crash-safe file writing: write a temporary file beside the target, flush it to disk,
//! then rename it over the target (and, on Unix, flush the directory entry). Every file
//! the tool writes goes through here (`tests/reliability.rs` checks the sources).
//!
//! Temporary names are unique per process and per write (`.NAME.tmpPID-N`) and removed
//! when a write fails; the temporaries a killed process left beside a target are removed
//! by the next write of that target, once their process is gone.

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
    let prefix = format!(".{name}.tmp");
    remove_stale_temporaries(dir, &prefix);
    let tmp = dir.join(format!("{prefix}{}-{unique}", std::process::id()));
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

/// Removes `dir/PREFIXPID-N` files whose process `PID` no longer runs (a write killed
/// half-way). Best effort: errors are ignored.
fn remove_stale_temporaries(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(prefix))
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, n)| n.parse::<u64>().ok().and(pid.parse::<u32>().ok()))
        else {
            continue;
        };
        if pid != std::process::id() && !process_alive(pid) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Whether a process with this id exists (Unix: `kill(pid, 0)`; elsewhere assumed).
fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
        // SAFETY: signal 0 only checks that the process exists and may be signalled.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary left by a killed writer (its process gone) is removed by the next
    /// write of the same file; one of a running process (pid 1) and other files stay.
    #[test]
    fn stale_temporaries_of_dead_writers_are_removed() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("model.json");
        // Above any Linux pid_max (2^22), so no process has it.
        let dead = d.path().join(".model.json.tmp4194999-3");
        let live = d.path().join(".model.json.tmp1-0");
        let other = d.path().join(".other.json.tmp4194999-3");
        for f in [&dead, &live, &other] {
            std::fs::write(f, b"half").unwrap();
        }
        write_atomic(&p, b"whole").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"whole");
        assert!(!dead.exists(), "stale temporary left behind");
        assert!(live.exists() && other.exists());
    }

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
