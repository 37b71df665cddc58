//! Scale-out: the communicator the training engine reduces over, and the distributed
//! suites' job queue. Under `mpirun -np N` (cargo feature `mpi`) the process's
//! communicator is MPI's world; otherwise, and always in the default build, it is
//! [`Local`], for which every operation is the identity and the single-process path is
//! exactly what it was.
//!
//! Results are identical for any number of ranks because nothing here sums floats:
//! - integer counts (the Boolean vote rule's) are summed with an allreduce, which is exact;
//! - float gradients (the relaxed and smooth rules') are summed as fixed-point integers
//!   over chunks of the batch that do not depend on the number of ranks
//!   (`train::gradient_sum`): each rank evaluates its [`block`] of the chunks, and the
//!   integer sums cross in one allreduce per step.
//!
//! The training engine reads the communicator of the current [`scope`] ([`current`]);
//! outside any scope it is [`Local`], so work that only rank 0 does (writing outputs,
//! evaluating the trained model) never waits for the others.

mod jobs;
#[cfg(feature = "mpi")]
mod mpi;

pub use jobs::run_jobs;
#[cfg(feature = "mpi")]
pub use mpi::MpiComm;

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

/// What the training engine and the suites need from a group of processes. Every
/// collective must be called by all ranks, in the same order.
pub trait Comm {
    /// This process's rank, from 0.
    fn rank(&self) -> usize;

    /// Number of ranks.
    fn size(&self) -> usize;

    /// Replaces `v` on every rank by the element-wise sum over the ranks (exact).
    fn sum_u64(&self, v: &mut [u64]);

    /// [`sum_u64`](Self::sum_u64) for 32-bit words (the caller knows the sums fit).
    fn sum_u32(&self, v: &mut [u32]);

    /// [`sum_u64`](Self::sum_u64) for 16-bit words (the caller knows the sums fit).
    fn sum_u16(&self, v: &mut [u16]);

    /// Gathers one word from every rank, in rank order.
    fn gather_u64(&self, mine: u64) -> Vec<u64>;

    /// Sends `bytes` to rank `to` with `tag` (point to point, for the job queue).
    fn send(&self, to: usize, tag: u16, bytes: &[u8]);

    /// A message from any rank if one has arrived: `(from, tag, bytes)`.
    fn try_receive(&self) -> Option<(usize, u16, Vec<u8>)>;

    /// Waits for a message from rank `from`: `(tag, bytes)`.
    fn receive(&self, from: usize) -> (u16, Vec<u8>);

    /// Ends every rank's process with `code` (a rank that cannot go on).
    fn abort(&self, code: i32) -> !;

    /// What this rank's collectives have moved so far (zero for [`Local`]).
    fn traffic(&self) -> Traffic {
        Traffic::default()
    }
}

/// Collectives a rank took part in, the bytes it put in and got out, and the wall time
/// spent inside them (waiting for slower ranks included).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Traffic {
    /// Collective calls.
    pub collectives: u64,
    /// Bytes this rank contributed.
    pub bytes_sent: u64,
    /// Bytes this rank received from the others.
    pub bytes_received: u64,
    /// Seconds inside collectives.
    pub seconds: f64,
}

/// One process alone: every collective is the identity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Local;

impl Comm for Local {
    fn rank(&self) -> usize {
        0
    }

    fn size(&self) -> usize {
        1
    }

    fn sum_u64(&self, _v: &mut [u64]) {}

    fn sum_u32(&self, _v: &mut [u32]) {}

    fn sum_u16(&self, _v: &mut [u16]) {}

    fn gather_u64(&self, mine: u64) -> Vec<u64> {
        vec![mine]
    }

    fn send(&self, to: usize, _tag: u16, _bytes: &[u8]) {
        unreachable!("one process has no rank {to} to send to")
    }

    fn try_receive(&self) -> Option<(usize, u16, Vec<u8>)> {
        None
    }

    fn receive(&self, from: usize) -> (u16, Vec<u8>) {
        unreachable!("one process has no rank {from} to receive from")
    }

    fn abort(&self, code: i32) -> ! {
        std::process::exit(code)
    }
}

/// Replaces the counts `v` on every rank by their element-wise sum over the ranks, sent
/// in the narrowest words that hold every sum: the ranks first share their largest count,
/// whose sum over the ranks bounds every summed count; under 2^16 the counts cross as
/// u16, under 2^32 as u32, else as u64. The sums are exact either way (the same as
/// [`Comm::sum_u64`]), at a half or a quarter of the bytes.
pub fn sum_counts(comm: &dyn Comm, v: &mut [u64]) {
    if comm.size() == 1 {
        return;
    }
    let bound =
        comm.gather_u64(v.iter().copied().max().unwrap_or(0)).into_iter().fold(0u64, u64::saturating_add);
    if u16::try_from(bound).is_ok() {
        let mut narrow: Vec<u16> = v.iter().map(|&c| c as u16).collect();
        comm.sum_u16(&mut narrow);
        v.iter_mut().zip(narrow).for_each(|(c, n)| *c = u64::from(n));
    } else if u32::try_from(bound).is_ok() {
        let mut narrow: Vec<u32> = v.iter().map(|&c| c as u32).collect();
        comm.sum_u32(&mut narrow);
        v.iter_mut().zip(narrow).for_each(|(c, n)| *c = u64::from(n));
    } else {
        comm.sum_u64(v);
    }
}

/// The part of `0..n` that rank `rank` of `size` takes: contiguous blocks in rank order,
/// the first `n % size` ranks one longer (uneven shards are fine).
#[must_use]
pub fn block(n: usize, size: usize, rank: usize) -> Range<usize> {
    let (q, r) = (n / size.max(1), n % size.max(1));
    let start = rank * q + rank.min(r);
    start..start + q + usize::from(rank < r)
}

thread_local! {
    static WORLD: RefCell<Option<Rc<dyn Comm>>> = const { RefCell::new(None) };
    static CURRENT: RefCell<Option<Rc<dyn Comm>>> = const { RefCell::new(None) };
}

/// The process's communicator: MPI's world when [`init_mpi`] found the process started by
/// `mpirun` (feature `mpi`), else [`Local`]. On threads other than the one that called
/// [`init_mpi`] it is always [`Local`].
#[must_use]
pub fn comm_world() -> Rc<dyn Comm> {
    WORLD.with(|w| w.borrow().clone()).unwrap_or_else(|| Rc::new(Local))
}

/// The communicator the training engine reduces over here: the one of the innermost
/// [`scope`], else [`Local`].
#[must_use]
pub fn current() -> Rc<dyn Comm> {
    CURRENT.with(|c| c.borrow().clone()).unwrap_or_else(|| Rc::new(Local))
}

/// Runs `f` with `comm` as the [`current`] communicator (restored afterwards, also on
/// unwinding). Every rank of `comm` must run the same `f` on the same inputs.
pub fn scope<T>(comm: Rc<dyn Comm>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Rc<dyn Comm>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let old = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = old);
        }
    }
    let old = CURRENT.with(|c| c.borrow_mut().replace(comm));
    let _restore = Restore(old);
    f()
}

/// Threads each rank's pool should have for `requested` (`--threads`, 0 = all cores):
/// with several ranks on one machine (`OMPI_COMM_WORLD_LOCAL_SIZE`), 0 becomes the cores
/// divided among them, so that ranks do not oversubscribe the machine.
#[must_use]
pub fn threads_per_rank(requested: usize) -> usize {
    if requested > 0 || comm_world().size() == 1 {
        return requested;
    }
    let local: usize =
        std::env::var("OMPI_COMM_WORLD_LOCAL_SIZE").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    (cores / local.max(1)).max(1)
}

/// Keeps MPI initialised while alive (from [`init_mpi`]); dropping it finalises MPI.
pub struct Session {
    #[cfg(feature = "mpi")]
    _mpi: Option<mpi::Universe>,
}

impl Drop for Session {
    fn drop(&mut self) {
        // `CIRCUITLEARN_MPI_STATS=1`: each rank's traffic on stderr (for BENCHMARKS.md).
        if std::env::var_os("CIRCUITLEARN_MPI_STATS").is_some() {
            let w = comm_world();
            let t = w.traffic();
            eprintln!(
                "mpi rank {} of {}: {} collectives, {} bytes sent, {} received, {:.3} s in collectives",
                w.rank(),
                w.size(),
                t.collectives,
                t.bytes_sent,
                t.bytes_received,
                t.seconds
            );
        }
        WORLD.with(|w| w.borrow_mut().take());
        CURRENT.with(|c| c.borrow_mut().take());
    }
}

/// Initialises MPI when the process was started by `mpirun` (feature `mpi`; the
/// launcher's environment tells), making [`comm_world`] its communicator on this thread. A
/// process started otherwise, or built without the feature, stays [`Local`].
#[must_use]
pub fn init_mpi() -> Session {
    #[cfg(feature = "mpi")]
    {
        let launched =
            ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"].iter().any(|v| std::env::var_os(v).is_some());
        if launched && let Some((universe, comm)) = mpi::initialize() {
            WORLD.with(|w| *w.borrow_mut() = Some(Rc::new(comm)));
            return Session { _mpi: Some(universe) };
        }
        Session { _mpi: None }
    }
    #[cfg(not(feature = "mpi"))]
    Session {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_tile_the_range_in_order() {
        for n in 0..20 {
            for size in 1..6 {
                let blocks: Vec<Range<usize>> = (0..size).map(|r| block(n, size, r)).collect();
                assert_eq!(blocks[0].start, 0);
                assert_eq!(blocks[size - 1].end, n);
                for w in blocks.windows(2) {
                    assert_eq!(w[0].end, w[1].start);
                    assert!(w[0].len() >= w[1].len() && w[0].len() <= w[1].len() + 1);
                }
            }
        }
    }

    /// Two ranks that counted the same: sums double; records the word width used.
    struct Twice(std::cell::Cell<usize>);

    impl Comm for Twice {
        fn rank(&self) -> usize {
            0
        }
        fn size(&self) -> usize {
            2
        }
        fn sum_u64(&self, v: &mut [u64]) {
            self.0.set(64);
            v.iter_mut().for_each(|c| *c *= 2);
        }
        fn sum_u32(&self, v: &mut [u32]) {
            self.0.set(32);
            v.iter_mut().for_each(|c| *c *= 2);
        }
        fn sum_u16(&self, v: &mut [u16]) {
            self.0.set(16);
            v.iter_mut().for_each(|c| *c *= 2);
        }
        fn gather_u64(&self, mine: u64) -> Vec<u64> {
            vec![mine, mine]
        }
        fn send(&self, _: usize, _: u16, _: &[u8]) {}
        fn try_receive(&self) -> Option<(usize, u16, Vec<u8>)> {
            None
        }
        fn receive(&self, _: usize) -> (u16, Vec<u8>) {
            (0, Vec::new())
        }
        fn abort(&self, code: i32) -> ! {
            std::process::exit(code)
        }
    }

    #[test]
    fn counts_cross_in_the_narrowest_words_that_hold_their_sums() {
        for (max, width) in [
            (0, 16),
            (32_767, 16),
            (32_768, 32),
            (u64::from(u32::MAX / 2), 32),
            (1 << 31, 64),
            (u64::MAX / 2, 64),
        ] {
            let comm = Twice(std::cell::Cell::new(0));
            let mut v = vec![max, 1, 0, max / 3];
            let want: Vec<u64> = v.iter().map(|c| c * 2).collect();
            sum_counts(&comm, &mut v);
            assert_eq!((v, comm.0.get()), (want, width), "largest count {max}");
        }
    }

    #[test]
    fn a_scope_is_restored() {
        assert_eq!(current().size(), 1);
        scope(Rc::new(Local), || assert_eq!(current().rank(), 0));
    }
}
