//! A fixed-size log-linear histogram for latencies.
//!
//! Why it exists: the demo records one sample per log call and per delivered event (up to
//! millions), so storing samples would grow without bound. Values below 32 are counted
//! exactly; above, each power of two is split into 32 buckets, so a reported quantile is
//! within about 3% of the true value. Memory is 1920 counters whatever is recorded.

/// Bits of sub-bucket resolution within each power of two.
const SUB_BITS: u32 = 5;
/// Sub-buckets per power of two.
const SUB: u64 = 1 << SUB_BITS;
/// Exact buckets for 0..32, then 32 per power of two from 2^5 to 2^63.
const BUCKETS: usize = ((64 - SUB_BITS) as usize + 1) * SUB as usize;

/// Counts of `u64` samples in log-linear buckets.
#[derive(Clone, Debug)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Histogram {
        Histogram {
            counts: vec![0; BUCKETS],
            total: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    /// Adds one sample.
    pub fn record(&mut self, value: u64) {
        self.counts[index(value)] += 1;
        self.total += 1;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }

    /// Adds every sample of `other`.
    pub fn merge(&mut self, other: &Histogram) {
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            *mine += theirs;
        }
        self.total += other.total;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// Largest sample (0 when empty).
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The value at quantile `q` (0.0..=1.0), within the bucket resolution; 0 when empty.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (low, high) = bounds(i);
                return (low + (high - low) / 2).clamp(self.min, self.max);
            }
        }
        self.max
    }
}

/// The bucket a value falls in.
fn index(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let exp = 63 - v.leading_zeros(); // >= SUB_BITS
    let mantissa = (v >> (exp - SUB_BITS)) - SUB; // 0..SUB
    (exp - SUB_BITS + 1) as usize * SUB as usize + mantissa as usize
}

/// Smallest and largest value of a bucket.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB {
        return (i, i);
    }
    let group = i / SUB; // >= 1
    let shift = group - 1;
    let mantissa = i % SUB + SUB;
    let low = mantissa << shift;
    (low, low + ((1u64 << shift) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_every_value_in_order() {
        for v in [0, 1, 31, 32, 33, 63, 64, 65, 1000, 123_456_789, u64::MAX] {
            let (low, high) = bounds(index(v));
            assert!(low <= v && v <= high, "{v} not in {low}..={high}");
        }
        assert_eq!(index(u64::MAX), BUCKETS - 1);
        let mut last = 0;
        for v in (0..100_000u64).step_by(7) {
            assert!(index(v) >= last);
            last = index(v);
        }
    }

    #[test]
    fn quantiles_are_within_resolution() {
        let mut h = Histogram::new();
        for v in 1..=10_000u64 {
            h.record(v);
        }
        let p50 = h.quantile(0.5) as f64;
        let p99 = h.quantile(0.99) as f64;
        assert!((p50 - 5000.0).abs() / 5000.0 < 0.04, "p50 {p50}");
        assert!((p99 - 9900.0).abs() / 9900.0 < 0.04, "p99 {p99}");
        assert_eq!(h.quantile(1.0), 10_000);
        assert_eq!(h.quantile(0.0), 1);
        assert_eq!(Histogram::new().quantile(0.5), 0);
    }

    #[test]
    fn merge_adds_counts() {
        let mut a = Histogram::new();
        let mut b = Histogram::new();
        a.record(5);
        b.record(500);
        b.record(7);
        a.merge(&b);
        assert_eq!(a.count(), 3);
        assert_eq!(a.max(), 500);
        assert_eq!(a.quantile(0.0), 5);
    }
}
