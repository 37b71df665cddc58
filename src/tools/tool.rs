//! Finding and running external tools, with logs.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use thiserror::Error;

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
        let exe = self.find()?;
        let io = |source| ToolError::Io { tool: self.name(), log: log.to_path_buf(), source };
        let out = Command::new(&exe).args(args).current_dir(dir).output().map_err(io)?;
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        let header = format!(
            "$ {} {}\n",
            exe.display(),
            args.iter().map(|a| a.as_ref().to_string_lossy()).collect::<Vec<_>>().join(" ")
        );
        crate::io::write_atomic(log, format!("{header}{text}").as_bytes()).map_err(io)?;
        Ok(RunOutput {
            success: out.status.success(),
            status: out.status.to_string(),
            text,
            log: log.to_path_buf(),
        })
    }

    /// [`run`](Self::run), with a non-zero exit status turned into [`ToolError::Failed`].
    ///
    /// # Errors
    /// As [`run`](Self::run), plus [`ToolError::Failed`] on a non-zero exit status.
    pub fn run_ok<S: AsRef<OsStr>>(self, args: &[S], dir: &Path, log: &Path) -> Result<RunOutput, ToolError> {
        let out = self.run(args, dir, log)?;
        if out.success {
            Ok(out)
        } else {
            Err(ToolError::Failed { tool: self.name(), what: out.status, log: out.log })
        }
    }
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
