//! Finding and running external tools, with logs, a time bound, and no orphans: each
//! run is a process group of its own, led by a small `sh` that kills the whole group
//! when its parent (this process) dies, whatever the way (the parent-death signal); the
//! group is also killed when the time bound passes or the runner is dropped.

use itertools::Itertools;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};
use thiserror::Error;

/// The default time bound of one tool run: 30 minutes.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// Limits of one external tool run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolLimits {
    /// Wall-clock bound; the run's process group is killed when it passes.
    pub timeout: Duration,
}

impl Default for ToolLimits {
    fn default() -> Self {
        Self { timeout: DEFAULT_TOOL_TIMEOUT }
    }
}

/// An external program the checks use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// The Icarus Verilog compiler.
    Iverilog,
    /// The Icarus Verilog runtime.
    Vvp,
    /// Yosys.
    Yosys,
    /// Berkeley ABC.
    Abc,
}

/// Why a tool could not do its job (a failed check is not an error: see each runner).
#[derive(Debug, Error)]
pub enum ToolError {
    /// Not on `PATH`.
    #[error("{tool} not found on PATH; install the Debian package {package} (apt-get install {package})")]
    Missing {
        /// Program name.
        tool: &'static str,
        /// Debian package providing it.
        package: &'static str,
    },
    /// Ran but failed, or printed something the runner does not understand.
    #[error("{tool} failed ({what}); see the log {}", log.display())]
    Failed {
        /// Program name.
        tool: &'static str,
        /// Exit status or what was missing from the output.
        what: String,
        /// Log with the tool's output.
        log: PathBuf,
    },
    /// Killed when its time bound passed.
    #[error("{tool} timed out after {:.1} s (limit); see the log {}", timeout.as_secs_f64(), log.display())]
    TimedOut {
        /// Program name.
        tool: &'static str,
        /// The bound that passed.
        timeout: Duration,
        /// Log with what the tool printed before it was killed.
        log: PathBuf,
    },
    /// Could not be started, or its log could not be written.
    #[error("cannot run {tool}: {source} (log {})", log.display())]
    Io {
        /// Program name.
        tool: &'static str,
        /// Intended log.
        log: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
}

impl ToolError {
    /// The same error, pointing at `log` instead (when several runs' logs were merged
    /// into one).
    #[must_use]
    pub fn with_log(self, log: &Path) -> Self {
        let log = log.to_path_buf();
        match self {
            Self::Failed { tool, what, .. } => Self::Failed { tool, what, log },
            Self::TimedOut { tool, timeout, .. } => Self::TimedOut { tool, timeout, log },
            Self::Io { tool, source, .. } => Self::Io { tool, log, source },
            missing @ Self::Missing { .. } => missing,
        }
    }
}

/// What a finished run printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOutput {
    /// Whether the exit status was 0.
    pub success: bool,
    /// The exit status as text.
    pub status: String,
    /// Standard output then standard error.
    pub text: String,
    /// The log holding `text`.
    pub log: PathBuf,
}

impl Tool {
    /// Program name used in messages.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Tool::Iverilog => "iverilog",
            Tool::Vvp => "vvp",
            Tool::Yosys => "yosys",
            Tool::Abc => "berkeley-abc",
        }
    }

    /// Executable names tried, in order.
    #[must_use]
    pub fn executables(self) -> &'static [&'static str] {
        match self {
            Tool::Iverilog => &["iverilog"],
            Tool::Vvp => &["vvp"],
            Tool::Yosys => &["yosys"],
            Tool::Abc => &["berkeley-abc", "abc"],
        }
    }

    /// The Debian package that provides the tool.
    #[must_use]
    pub fn package(self) -> &'static str {
        match self {
            Tool::Iverilog | Tool::Vvp => "iverilog",
            Tool::Yosys => "yosys",
            Tool::Abc => "berkeley-abc",
        }
    }

    /// The tool's executable on `PATH`.
    ///
    /// # Errors
    /// [`ToolError::Missing`] naming the tool and its Debian package.
    pub fn find(self) -> Result<PathBuf, ToolError> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        for dir in std::env::split_paths(&path) {
            for exe in self.executables() {
                let p = dir.join(exe);
                if is_executable(&p) {
                    return Ok(p);
                }
            }
        }
        Err(ToolError::Missing { tool: self.name(), package: self.package() })
    }

    /// Runs the tool with `args` in `dir`, writing everything it prints to `log`.
    ///
    /// # Errors
    /// [`ToolError::Missing`] if the tool is not installed, [`ToolError::Io`] if it cannot
    /// be started or the log cannot be written. A non-zero exit status is not an error
    /// here: callers decide what it means.
    pub fn run<S: AsRef<OsStr>>(self, args: &[S], dir: &Path, log: &Path) -> Result<RunOutput, ToolError> {
        self.run_limited(args, dir, log, &ToolLimits::default())
    }

    /// [`run`](Self::run) within `limits`.
    ///
    /// # Errors
    /// As [`run`](Self::run), plus [`ToolError::TimedOut`] when the bound passed (the
    /// log then holds what the tool printed until it was killed).
    pub fn run_limited<S: AsRef<OsStr>>(
        self,
        args: &[S],
        dir: &Path,
        log: &Path,
        limits: &ToolLimits,
    ) -> Result<RunOutput, ToolError> {
        let exe = self.find()?;
        let io = |source| ToolError::Io { tool: self.name(), log: log.to_path_buf(), source };
        let out = run_bounded(&exe, args, dir, limits.timeout).map_err(io)?;
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        let header =
            format!("$ {} {}\n", exe.display(), args.iter().map(|a| a.as_ref().to_string_lossy()).join(" "));
        let footer = if out.status.is_none() {
            format!(
                "\n[killed by circuitlearn: time bound of {:.1} s passed]\n",
                limits.timeout.as_secs_f64()
            )
        } else {
            String::new()
        };
        crate::io::write_atomic(log, format!("{header}{text}{footer}").as_bytes()).map_err(io)?;
        let Some(status) = out.status else {
            return Err(ToolError::TimedOut {
                tool: self.name(),
                timeout: limits.timeout,
                log: log.to_path_buf(),
            });
        };
        Ok(RunOutput { success: status.success(), status: status.to_string(), text, log: log.to_path_buf() })
    }

    /// [`run`](Self::run), with a non-zero exit status turned into [`ToolError::Failed`].
    ///
    /// # Errors
    /// As [`run`](Self::run), plus [`ToolError::Failed`] on a non-zero exit status.
    pub fn run_ok<S: AsRef<OsStr>>(self, args: &[S], dir: &Path, log: &Path) -> Result<RunOutput, ToolError> {
        self.run_ok_limited(args, dir, log, &ToolLimits::default())
    }

    /// [`run_ok`](Self::run_ok) within `limits`.
    ///
    /// # Errors
    /// As [`run_limited`](Self::run_limited), plus [`ToolError::Failed`] on a non-zero
    /// exit status.
    pub fn run_ok_limited<S: AsRef<OsStr>>(
        self,
        args: &[S],
        dir: &Path,
        log: &Path,
        limits: &ToolLimits,
    ) -> Result<RunOutput, ToolError> {
        let out = self.run_limited(args, dir, log, limits)?;
        if out.success {
            Ok(out)
        } else {
            Err(ToolError::Failed { tool: self.name(), what: out.status, log: out.log })
        }
    }
}

/// What a bounded run printed; `status` is `None` when the bound passed and the
/// process group was killed.
#[derive(Debug)]
pub struct BoundedRun {
    /// The exit status, or `None` after a timeout.
    pub status: Option<ExitStatus>,
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Standard error.
    pub stderr: Vec<u8>,
}

/// The leader of each run's process group: it starts the program in the background and
/// waits; on SIGTERM (the parent-death signal, or a kill) or SIGHUP it kills the group,
/// itself and the program's own children included (`iverilog` runs `ivlpp` and `ivl`,
/// Yosys runs `yosys-abc`).
const GROUP_LEADER: &str = r#"trap 'kill -KILL 0' TERM HUP; "$@" & wait $!"#;

/// Kills a run's process group when dropped (a panic, an early return).
struct Group(Option<Child>);

impl Group {
    fn kill(&mut self) {
        if let Some(mut child) = self.0.take() {
            kill_group(child.id());
            let _ = child.wait();
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(unix)]
fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) with a negative pid signals that process group; no memory is
        // touched.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group(_pid: u32) {}

/// Runs `program args` in `dir` (stdin empty, stdout and stderr captured) in a process
/// group of its own that dies with this process, killing the group after `timeout`.
/// Every tool runner goes through it.
///
/// # Errors
/// The program cannot be started, or its output cannot be read.
pub fn run_bounded<S: AsRef<OsStr>>(
    program: &Path,
    args: &[S],
    dir: &Path,
    timeout: Duration,
) -> std::io::Result<BoundedRun> {
    let mut cmd = if cfg!(unix) {
        let mut c = Command::new("/bin/sh");
        c.arg("-c").arg(GROUP_LEADER).arg("sh").arg(program);
        c
    } else {
        Command::new(program)
    };
    cmd.args(args).current_dir(dir).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
        #[cfg(target_os = "linux")]
        {
            let parent = i32::try_from(std::process::id()).unwrap_or(0);
            // SAFETY: only async-signal-safe calls (prctl, getppid) between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM, 0, 0, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    // The parent may have died before the signal was armed.
                    if libc::getppid() != parent {
                        return Err(std::io::Error::other("parent exited before the tool started"));
                    }
                    Ok(())
                });
            }
        }
    }
    let mut group = Group(Some(cmd.spawn()?));
    let Some(child) = group.0.as_mut() else { return Err(std::io::Error::other("no child")) };
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = reader(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let err = reader(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let deadline = Instant::now().checked_add(timeout);
    let mut nap = Duration::from_millis(1);
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break Some(s);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break None;
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(50));
    };
    // Whatever the leader left behind (or everything, after a timeout) goes now, so the
    // pipes close and the readers end.
    group.kill();
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    Ok(BoundedRun { status, stdout, stderr })
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// Whether process `pid` is gone (or a zombie nobody has reaped yet).
    fn gone(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_or(true, |s| s.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')))
    }

    /// Waits (up to a minute: this is about liveness, not speed) for `f`.
    fn eventually(f: impl Fn() -> bool) -> bool {
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(60) {
            if f() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// A `sleep 600` that first writes its pid to `file`.
    fn sleeper_args(file: &Path) -> Vec<String> {
        vec!["-c".into(), format!("echo $$ > '{}'; exec sleep 600", file.display())]
    }

    fn read_pid(file: &Path) -> u32 {
        assert!(eventually(|| std::fs::read_to_string(file).is_ok_and(|s| s.ends_with('\n'))));
        std::fs::read_to_string(file).unwrap().trim().parse().unwrap()
    }

    #[test]
    fn a_run_past_its_bound_is_killed_and_reported() {
        let d = tempfile::tempdir().unwrap();
        let pidfile = d.path().join("pid");
        let r =
            run_bounded(Path::new("/bin/sh"), &sleeper_args(&pidfile), d.path(), Duration::from_millis(300))
                .unwrap();
        assert!(r.status.is_none(), "{r:?}");
        // SIGKILL is delivered asynchronously: the child goes soon, not at once.
        let pid = read_pid(&pidfile);
        assert!(eventually(|| gone(pid)), "the timed-out child survived");
        let ok =
            run_bounded(Path::new("/bin/sh"), &["-c", "echo hi; exit 3"], d.path(), Duration::from_secs(60))
                .unwrap();
        assert_eq!((ok.status.and_then(|s| s.code()), ok.stdout.as_slice()), (Some(3), &b"hi\n"[..]));
    }

    /// Not a test on its own: the body of the child process that
    /// `a_tool_dies_with_its_parent` starts (and kills); without the variable it is a no-op.
    #[test]
    fn parent_death_helper() {
        if let Some(file) = std::env::var_os("CIRCUITLEARN_PARENT_DEATH_HELPER") {
            let file = PathBuf::from(file);
            let _ =
                run_bounded(Path::new("/bin/sh"), &sleeper_args(&file), Path::new("/"), DEFAULT_TOOL_TIMEOUT);
        }
    }

    #[test]
    fn a_tool_dies_with_its_parent() {
        let d = tempfile::tempdir().unwrap();
        let pidfile = d.path().join("pid");
        let mut helper = Command::new(std::env::current_exe().unwrap())
            .args(["tools::tool::tests::parent_death_helper", "--exact", "--test-threads", "1"])
            .env("CIRCUITLEARN_PARENT_DEATH_HELPER", &pidfile)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let tool = read_pid(&pidfile);
        assert!(!gone(tool), "the tool should be running while its parent lives");
        helper.kill().unwrap(); // SIGKILL: no destructor, no cleanup in the parent
        helper.wait().unwrap();
        assert!(eventually(|| gone(tool)), "tool {tool} outlived its parent");
    }
}
