//! The `circuitlearn` binary: parses the command line and maps errors to exit codes.

use circuitlearn::cli::{Cli, error_line, exit_code, run};
use clap::Parser;

fn main() {
    circuitlearn::smooth::retain_freed_memory();
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        eprintln!("error: {}", error_line(&e));
        std::process::exit(exit_code(&e));
    }
}
