//! How long to wait before retrying a request.
//!
//! Why it exists: synchronized retries from many processes hammer an intake that is
//! already struggling. Full-jitter exponential backoff spreads them; an intake's
//! `Retry-After` (delta-seconds or HTTP-date) is honoured, capped so a bad header can not
//! park a sender for hours.

use std::time::{Duration, SystemTime};

/// Retry delay policy.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Backoff {
    pub initial: Duration,
    pub max: Duration,
}

impl Backoff {
    /// Delay before retry number `retry` (0 for the first retry): `Retry-After` when the
    /// intake gave one, capped at `max` and never under `initial` (a `0` or a date in the
    /// past must not turn retries into a burst), otherwise uniform in
    /// `0..=min(max, initial * 2^retry)`.
    pub(crate) fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after.max(self.initial).min(self.max);
        }
        let ceiling = self
            .initial
            .checked_mul(1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX))
            .unwrap_or(self.max)
            .min(self.max);
        let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(fastrand::u64(0..=nanos))
    }
}

/// Parses a `Retry-After` value: delta-seconds, or an HTTP-date relative to `now`.
pub(crate) fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jittered_delay_stays_under_the_doubling_ceiling() {
        let b = Backoff {
            initial: Duration::from_millis(200),
            max: Duration::from_secs(10),
        };
        for retry in 0..40 {
            let ceiling = Duration::from_millis(200u64.saturating_mul(1 << retry.min(20)))
                .min(Duration::from_secs(10));
            for _ in 0..50 {
                assert!(b.delay(retry, None) <= ceiling);
            }
        }
    }

    #[test]
    fn retry_after_is_honoured_and_capped() {
        let b = Backoff {
            initial: Duration::from_millis(200),
            max: Duration::from_secs(10),
        };
        assert_eq!(
            b.delay(0, Some(Duration::from_secs(2))),
            Duration::from_secs(2)
        );
        assert_eq!(
            b.delay(0, Some(Duration::from_secs(3600))),
            Duration::from_secs(10)
        );
    }

    #[test]
    fn retry_after_zero_or_in_the_past_still_waits_the_initial_backoff() {
        let b = Backoff {
            initial: Duration::from_millis(200),
            max: Duration::from_secs(10),
        };
        for retry in 0..5 {
            assert_eq!(
                b.delay(retry, Some(Duration::ZERO)),
                Duration::from_millis(200)
            );
            assert_eq!(
                b.delay(retry, Some(Duration::from_millis(1))),
                Duration::from_millis(200)
            );
        }
    }

    #[test]
    fn retry_after_parses_seconds_and_dates() {
        let now = httpdate::parse_http_date("Sun, 29 Nov 2026 10:00:00 GMT").unwrap();
        assert_eq!(parse_retry_after(" 2 ", now), Some(Duration::from_secs(2)));
        assert_eq!(
            parse_retry_after("Sun, 29 Nov 2026 10:00:05 GMT", now),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            parse_retry_after("Sun, 29 Nov 2026 09:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }
}
