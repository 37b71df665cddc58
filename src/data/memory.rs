//! How much memory loading and encoding data may take, checked before allocating.
//!
//! Readers size what they keep by what the data will occupy once parsed (eight bytes per
//! numeric value, one bit per Boolean input and example, one byte per pixel) and compare it
//! with a [`MemoryLimit`] before they allocate it: a decompression bomb, an IDX header
//! declaring millions of images or `--encoding thermometer:4294967296` is one error line,
//! not an allocation failure. The default limit is what the machine can give now: the
//! smallest of `MemAvailable` (`/proc/meminfo`), the address-space limit (`RLIMIT_AS`, as
//! set by `ulimit -v` or `prlimit --as`) less what the process already maps, and the cgroup's
//! `memory.max` less `memory.current`.

use std::fmt;
use std::str::FromStr;

use super::DataError;

/// Where a [`MemoryLimit`] came from (said in the error, so the user knows what to change).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitOrigin {
    /// `MemAvailable` in `/proc/meminfo`.
    Available,
    /// The process's address-space limit (`RLIMIT_AS`).
    AddressSpace,
    /// The cgroup's `memory.max`.
    Cgroup,
    /// Given by the caller (`--max-memory`).
    Given,
    /// Nothing known (not Linux): no limit.
    Unknown,
}

/// An upper bound on the bytes a loader or encoder may allocate for the data it returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    bytes: u64,
    origin: LimitOrigin,
}

impl MemoryLimit {
    /// A limit of `bytes` given by the caller (`--max-memory`).
    #[must_use]
    pub fn bytes(bytes: u64) -> Self {
        Self { bytes, origin: LimitOrigin::Given }
    }

    /// No limit.
    #[must_use]
    pub fn unlimited() -> Self {
        Self { bytes: u64::MAX, origin: LimitOrigin::Unknown }
    }

    /// What the machine can give this process now (see the module documentation).
    #[must_use]
    pub fn available() -> Self {
        let mut best = Self::unlimited();
        let mut take = |bytes: Option<u64>, origin| {
            if let Some(b) = bytes
                && b < best.bytes
            {
                best = Self { bytes: b, origin };
            }
        };
        take(meminfo_available(), LimitOrigin::Available);
        take(address_space_left(), LimitOrigin::AddressSpace);
        take(cgroup_left(), LimitOrigin::Cgroup);
        best
    }

    /// `limit` when given, else [`available`](Self::available).
    #[must_use]
    pub fn given_or_available(limit: Option<u64>) -> Self {
        limit.map_or_else(Self::available, Self::bytes)
    }

    /// The bound in bytes.
    #[must_use]
    pub fn limit(&self) -> u64 {
        self.bytes
    }

    /// Where the bound came from.
    #[must_use]
    pub fn origin(&self) -> LimitOrigin {
        self.origin
    }

    /// Checks that `need` bytes (`None`: more than a `u64` holds) fit the limit.
    ///
    /// # Errors
    /// [`DataError::TooLarge`] naming `path` and saying `what` needs the memory.
    pub fn check(&self, path: &str, what: &str, need: Option<u64>) -> Result<(), DataError> {
        match need {
            Some(n) if n <= self.bytes => Ok(()),
            _ => Err(DataError::TooLarge {
                path: path.to_owned(),
                what: what.to_owned(),
                need: need.map_or_else(|| "more than 2^64 bytes".into(), human),
                limit: self.to_string(),
            }),
        }
    }
}

impl fmt::Display for MemoryLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.origin {
            LimitOrigin::Available => "available memory (MemAvailable)",
            LimitOrigin::AddressSpace => "address space left under RLIMIT_AS",
            LimitOrigin::Cgroup => "memory left under the cgroup's memory.max",
            LimitOrigin::Given => "--max-memory limit",
            LimitOrigin::Unknown => "memory limit",
        };
        write!(f, "{} {what}", human(self.bytes))
    }
}

/// Error of [`MemoryLimit::from_str`].
#[derive(Debug, thiserror::Error)]
#[error("'{0}' is not a memory size: expected bytes, or a number with K, M, G or T (powers of 1024)")]
pub struct BadMemorySize(String);

impl FromStr for MemoryLimit {
    type Err = BadMemorySize;

    /// `1000000`, `512K`, `64M`, `4G`, `1T` (binary multiples; a trailing `B` or `iB` is
    /// allowed, case-insensitive).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadMemorySize(s.to_owned());
        let t = s.trim().to_ascii_uppercase();
        let t = t.strip_suffix("IB").or_else(|| t.strip_suffix('B')).unwrap_or(&t);
        let (num, shift) = match t.chars().last() {
            Some('K') => (&t[..t.len() - 1], 10),
            Some('M') => (&t[..t.len() - 1], 20),
            Some('G') => (&t[..t.len() - 1], 30),
            Some('T') => (&t[..t.len() - 1], 40),
            _ => (t, 0),
        };
        let n: u64 = num.trim().parse().map_err(|_| bad())?;
        n.checked_mul(1 << shift).filter(|&b| b > 0).map(Self::bytes).ok_or_else(bad)
    }
}

/// `bytes` in the largest binary unit that keeps it at least 1 (`3.9 GiB`).
#[must_use]
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 { format!("{bytes} bytes") } else { format!("{v:.1} {}", UNITS[u]) }
}

/// A `kB` field of a `/proc` file such as `MemAvailable:  123 kB`, in bytes.
fn proc_kb(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line[key.len()..].trim().trim_end_matches("kB").trim().parse().ok()?;
    kb.checked_mul(1024)
}

fn meminfo_available() -> Option<u64> {
    proc_kb(&std::fs::read_to_string("/proc/meminfo").ok()?, "MemAvailable:")
}

/// The soft `RLIMIT_AS` less the process's current virtual size.
fn address_space_left() -> Option<u64> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes one `rlimit` through a valid pointer.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &raw mut lim) } != 0 || lim.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    let used = proc_kb(&std::fs::read_to_string("/proc/self/status").ok()?, "VmSize:").unwrap_or(0);
    Some(lim.rlim_cur.saturating_sub(used))
}

/// cgroup v2: `memory.max` less `memory.current` of the process's own group.
fn cgroup_left() -> Option<u64> {
    let group = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let rel = group.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = std::path::Path::new("/sys/fs/cgroup").join(rel.trim_start_matches('/'));
    let max: u64 = std::fs::read_to_string(dir.join("memory.max")).ok()?.trim().parse().ok()?;
    let current: u64 = std::fs::read_to_string(dir.join("memory.current")).ok()?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!("4G".parse::<MemoryLimit>().map(|m| m.limit()).ok(), Some(4 << 30));
        assert_eq!("512mib".parse::<MemoryLimit>().map(|m| m.limit()).ok(), Some(512 << 20));
        assert_eq!("1000".parse::<MemoryLimit>().map(|m| m.limit()).ok(), Some(1000));
        for bad in ["", "0", "G", "-1G", "1.5G", "99999999999T"] {
            assert!(bad.parse::<MemoryLimit>().is_err(), "{bad}");
        }
        assert_eq!(human(3 << 30), "3.0 GiB");
        assert_eq!(human(17), "17 bytes");
        assert_eq!(MemoryLimit::bytes(1 << 20).to_string(), "1.0 MiB --max-memory limit");
    }

    #[test]
    fn checks_name_file_need_and_limit() {
        let m = MemoryLimit::bytes(1 << 20);
        assert!(m.check("f", "x", Some(1 << 20)).is_ok());
        let e = m.check("f.csv", "the parsed values", Some(3 << 30)).unwrap_err().to_string();
        assert_eq!(
            e,
            "f.csv: the parsed values would take 3.0 GiB, more than the 1.0 MiB --max-memory limit"
        );
        assert!(m.check("f", "x", None).unwrap_err().to_string().contains("more than 2^64 bytes"));
    }

    #[test]
    fn the_machine_has_some_memory() {
        let m = MemoryLimit::available();
        assert!(m.limit() > 1 << 20, "{m}");
        assert_eq!(proc_kb("MemTotal: 10 kB\nMemAvailable:   2 kB\n", "MemAvailable:"), Some(2048));
    }
}
