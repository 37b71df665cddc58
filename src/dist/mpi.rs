//! [`Comm`] over MPI's world communicator (rsmpi), for processes started by `mpirun`.

use super::{Comm, Traffic};
pub use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, Destination, Source};
use std::cell::Cell;
use std::time::Instant;

/// MPI's world communicator. Calls come from the thread that initialised MPI (the
/// training engine and the suites' dispatcher run there; other threads see [`Local`](super::Local)).
pub struct MpiComm {
    world: SimpleCommunicator,
    traffic: Cell<Traffic>,
}

impl MpiComm {
    fn count_in(&self, t0: Instant, sent: usize, received: usize) {
        let mut t = self.traffic.get();
        t.collectives += 1;
        t.bytes_sent += sent as u64;
        t.bytes_received += received as u64;
        t.seconds += t0.elapsed().as_secs_f64();
        self.traffic.set(t);
    }

    /// Element-wise sum over the ranks of `v`, in place (an allreduce).
    fn all_sum<T: mpi::datatype::Equivalence + Copy>(&self, v: &mut [T]) {
        use mpi::collective::{CommunicatorCollectives, SystemOperation};
        let t0 = Instant::now();
        let mine = v.to_vec();
        self.world.all_reduce_into(&mine[..], v, SystemOperation::sum());
        let bytes = std::mem::size_of_val(v);
        self.count_in(t0, bytes, bytes);
    }
}

/// Initialises MPI (one thread calls it: `MPI_THREAD_FUNNELED`).
pub(super) fn initialize() -> Option<(Universe, MpiComm)> {
    let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)?;
    let world = universe.world();
    Some((universe, MpiComm { world, traffic: Cell::new(Traffic::default()) }))
}

fn count(n: usize) -> mpi::Count {
    mpi::Count::try_from(n).expect("an MPI message of fewer than 2^31 values")
}

impl Comm for MpiComm {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn sum_u64(&self, v: &mut [u64]) {
        self.all_sum(v);
    }

    fn sum_u32(&self, v: &mut [u32]) {
        self.all_sum(v);
    }

    fn sum_u16(&self, v: &mut [u16]) {
        self.all_sum(v);
    }

    fn gather_u64(&self, mine: u64) -> Vec<u64> {
        use mpi::collective::CommunicatorCollectives;
        let t0 = Instant::now();
        let mut out = vec![0u64; self.size()];
        self.world.all_gather_into(&mine, &mut out[..]);
        self.count_in(t0, 8, 8 * (out.len() - 1));
        out
    }

    fn send(&self, to: usize, tag: u16, bytes: &[u8]) {
        self.world.process_at_rank(count(to)).send_with_tag(bytes, i32::from(tag));
    }

    fn try_receive(&self) -> Option<(usize, u16, Vec<u8>)> {
        use mpi::datatype::Equivalence;
        let (msg, status) = self.world.any_process().immediate_matched_probe()?;
        let len = usize::try_from(status.count(u8::equivalent_datatype())).unwrap_or(0);
        let mut bytes = vec![0u8; len];
        msg.matched_receive_into(&mut bytes[..]);
        Some((status.source_rank() as usize, status.tag() as u16, bytes))
    }

    fn receive(&self, from: usize) -> (u16, Vec<u8>) {
        let (bytes, status) = self.world.process_at_rank(count(from)).receive_vec::<u8>();
        (status.tag() as u16, bytes)
    }

    fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    fn traffic(&self) -> Traffic {
        self.traffic.get()
    }
}
