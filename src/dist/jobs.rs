//! A job queue over the ranks with dynamic load balancing, for the distributed suites:
//! rank 0 hands out job indices one at a time to whichever rank asks (every rank works,
//! rank 0 too, on a thread of its own), collects the results and passes them to the
//! caller's writer in the order they finish. With one rank the jobs run in order.

use super::Comm;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// A job that could not be done, or whose result could not be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("job {job} failed on rank {rank}: {message}")]
pub struct JobError {
    /// The job's index.
    pub job: usize,
    /// The rank that ran it (0 for a result rank 0 could not write).
    pub rank: usize,
    /// What went wrong.
    pub message: String,
}

/// Worker to rank 0: "give me a job", carrying the previous job's result if any.
const ASK: u16 = 1;
/// Rank 0 to a worker: a job index.
const JOB: u16 = 2;
/// Rank 0 to a worker: no more jobs.
const STOP: u16 = 3;

/// How long rank 0 sleeps when no message has arrived (it polls rather than spin).
const POLL: Duration = Duration::from_millis(2);

fn ask(result: Option<(usize, Result<Vec<u8>, String>)>) -> Vec<u8> {
    let mut m = Vec::new();
    if let Some((job, r)) = result {
        m.push(if r.is_ok() { 1 } else { 2 });
        m.extend_from_slice(&(job as u64).to_le_bytes());
        match r {
            Ok(b) => m.extend_from_slice(&b),
            Err(e) => m.extend_from_slice(e.as_bytes()),
        }
    } else {
        m.push(0);
    }
    m
}

fn word(b: &[u8]) -> usize {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes")) as usize
}

/// Runs the jobs `jobs` (ids, handed out in this order; only rank 0's list is read) over
/// the ranks of `comm`. `work(j)` computes job `j`'s result bytes (or says why it
/// failed); on rank 0, `done(j, bytes)` receives every result as it arrives (on other
/// ranks it is never called). Every rank must call this together.
///
/// # Errors
/// On rank 0, the first job that failed or whose result `done` refused (the other jobs
/// handed out still finish; no new ones start). Other ranks return `Ok`.
pub fn run_jobs(
    comm: &dyn Comm,
    jobs: &[usize],
    work: impl Fn(usize) -> Result<Vec<u8>, String> + Sync,
    mut done: impl FnMut(usize, Vec<u8>) -> Result<(), String>,
) -> Result<(), JobError> {
    let n = jobs.len();
    if comm.size() == 1 {
        for &j in jobs {
            let bytes = work(j).map_err(|message| JobError { job: j, rank: 0, message })?;
            done(j, bytes).map_err(|message| JobError { job: j, rank: 0, message })?;
        }
        return Ok(());
    }
    if comm.rank() != 0 {
        let mut result = None;
        loop {
            comm.send(0, ASK, &ask(result.take()));
            let (tag, bytes) = comm.receive(0);
            if tag != JOB {
                return Ok(());
            }
            let j = word(&bytes);
            result = Some((j, work(j)));
        }
    }
    let next = AtomicUsize::new(0);
    let take = || {
        let k = next.fetch_add(1, Ordering::SeqCst);
        jobs.get(k).copied()
    };
    let mut failed: Option<JobError> = None;
    let mut record = |j: usize, rank: usize, r: Result<Vec<u8>, String>, failed: &mut Option<JobError>| {
        let r = r.and_then(|b| done(j, b));
        if let Err(message) = r
            && failed.is_none()
        {
            *failed = Some(JobError { job: j, rank, message });
            next.store(n, Ordering::SeqCst);
        }
    };
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<(usize, Result<Vec<u8>, String>)>();
        let own = s.spawn(|| {
            while let Some(j) = take() {
                if tx.send((j, work(j))).is_err() {
                    break;
                }
            }
            drop(tx);
        });
        let mut remote = comm.size() - 1;
        let mut own_done = false;
        while remote > 0 || !own_done {
            let mut idle = true;
            loop {
                match rx.try_recv() {
                    Ok((j, r)) => {
                        idle = false;
                        record(j, 0, r, &mut failed);
                    }
                    Err(mpsc::TryRecvError::Empty) => break,
                    Err(mpsc::TryRecvError::Disconnected) => {
                        own_done = true;
                        break;
                    }
                }
            }
            if let Some((from, _, m)) = comm.try_receive() {
                idle = false;
                if m[0] != 0 {
                    let j = word(&m[1..9]);
                    let payload = m[9..].to_vec();
                    let r =
                        if m[0] == 1 { Ok(payload) } else { Err(String::from_utf8_lossy(&payload).into()) };
                    record(j, from, r, &mut failed);
                }
                match take() {
                    Some(j) => comm.send(from, JOB, &(j as u64).to_le_bytes()),
                    None => {
                        comm.send(from, STOP, &[]);
                        remote -= 1;
                    }
                }
            }
            if idle {
                std::thread::sleep(POLL);
            }
        }
        own.join().expect("rank 0's worker thread");
    });
    failed.map_or(Ok(()), Err)
}
