//! The `circuitlearn` binary: parses the command line and maps errors to exit codes.

use circuitlearn::{Cli, error_line, exit_code, run};
use clap::Parser;

fn main() {
    circuitlearn::retain_freed_memory();
    circuitlearn::op_times::enable_from_env();
    // Output piped into a reader that stops early (`| head`) ends the process quietly, as
    // for other command-line tools, instead of panicking in `println!`.
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Under `mpirun` (feature `mpi`) this joins the MPI job; otherwise it does nothing.
    let _session = circuitlearn::init_mpi();
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        let world = circuitlearn::comm_world();
        let code = exit_code(&e);
        if world.size() == 1 {
            eprintln!("error: {}", error_line(&e));
            std::process::exit(code);
        }
        // Bad input fails alike on every rank: rank 0 says so once. Anything else may have
        // failed on this rank alone: it says which. Either way the others may be waiting
        // for this rank in a collective (finalising would wait for them): end the job.
        if code != 2 {
            eprintln!("error: rank {} of {}: {}", world.rank(), world.size(), error_line(&e));
        } else if world.rank() == 0 {
            eprintln!("error: {}", error_line(&e));
        }
        world.abort(code);
    }
}
