//! Which file is which: device + inode, plus a fingerprint of the first bytes.
//!
//! Why it exists: a path names different files over time (rotation, symlink swaps), and
//! inodes are reused once a file is deleted, so neither alone says "this is the file whose
//! offset we know". The fingerprint is a stable 64-bit FNV-1a hash of up to [`FP_LEN`]
//! leading bytes (stable across builds and Rust versions, unlike `DefaultHasher`), so a
//! checkpoint never stores log content.
//!
//! Must never: read more than [`FP_LEN`] bytes to identify a file, or panic on a short or
//! unreadable file (an unreadable prefix is simply an empty fingerprint).

use std::fs::{File, Metadata};
use std::os::unix::fs::{FileExt, MetadataExt};

/// Bytes of a file's beginning that its fingerprint covers (at most).
pub const FP_LEN: usize = 256;

/// Device and inode of an open file or a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId {
    /// `st_dev`.
    pub dev: u64,
    /// `st_ino`.
    pub ino: u64,
}

impl FileId {
    /// The identity in `meta`.
    pub fn of(meta: &Metadata) -> FileId {
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }
}

/// A hash of a file's first `len` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Fingerprint {
    /// How many leading bytes it covers (0 for an empty file).
    pub len: usize,
    /// FNV-1a 64 of those bytes.
    pub hash: u64,
}

impl Fingerprint {
    /// The fingerprint of up to `max` leading bytes of `file` (fewer when the file is
    /// shorter; empty when it cannot be read).
    pub fn read(file: &File, max: usize) -> Fingerprint {
        let mut buf = [0u8; FP_LEN];
        let want = max.min(FP_LEN);
        let mut got = 0;
        while got < want {
            match file.read_at(&mut buf[got..want], got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        Fingerprint::of(&buf[..got])
    }

    /// The fingerprint of `bytes`.
    pub fn of(bytes: &[u8]) -> Fingerprint {
        Fingerprint {
            len: bytes.len(),
            hash: fnv1a(bytes),
        }
    }

    /// True when it covers [`FP_LEN`] bytes, enough to recognise a copy by content.
    pub fn is_full(&self) -> bool {
        self.len == FP_LEN
    }

    /// True when `file` still begins with the bytes this fingerprint covers.
    pub fn matches(&self, file: &File) -> bool {
        Fingerprint::read(file, self.len) == *self
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_is_the_published_function() {
        // Test vectors of the FNV reference: a stable hash is what lets a checkpoint
        // written by one build be read by the next.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
