//! The `circuitlearn` binary: parses the command line and maps errors to exit codes.

use circuitlearn::cli::{Cli, error_line, exit_code, run};
use clap::Parser;

fn main() {
    circuitlearn::smooth::retain_freed_memory();
    // Under `mpirun` (feature `mpi`) this joins the MPI job; otherwise it does nothing.
    let session = circuitlearn::dist::init();
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        let world = circuitlearn::dist::world();
        let code = exit_code(&e);
        if world.size() == 1 {
            eprintln!("error: {}", error_line(&e));
            std::process::exit(code);
        }
        // Bad input fails alike on every rank: rank 0 says so once. Anything else may have
        // failed on this rank alone while the others wait for it: say which, end the job.
        if code == 2 {
            if world.rank() == 0 {
                eprintln!("error: {}", error_line(&e));
            }
            drop(world);
            drop(session);
            std::process::exit(code);
        }
        eprintln!("error: rank {} of {}: {}", world.rank(), world.size(), error_line(&e));
        world.abort(code);
    }
}
