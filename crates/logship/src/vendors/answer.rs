//! Answer classification: what an intake's response means for the batch that was sent.
//!
//! Why it exists: retrying a permanent error (a bad key, a wrong URL) wastes the intake's
//! and the application's resources and hides the real problem; not retrying a transient
//! one loses logs. Each vendor maps statuses to an [`Outcome`] with a table of [`Rule`]s
//! (its `RESPONSES`); [`http_default`] is the plain HTTP mapping most of them start from.
//! Must never: read an unreadable answer as "delivered".

/// What to do with a batch after a response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The intake accepted it.
    Delivered,
    /// A transient failure: try again after a backoff.
    Retry,
    /// The intake will never accept it as sent: give up, report, count.
    Permanent,
    /// The request was too large: split the batch and send the halves.
    TooLarge,
    /// Some events were accepted, some not, and the intake says not to resend (an intake
    /// whose success status differs from its partial-success one): counted as delivered
    /// and as a partial success.
    Partial,
    /// The intake accepted the request but rejected this many of its events, without
    /// saying which, and asks not to resend (a `partialSuccess` count): the rest count as
    /// delivered, these as failed.
    PartialRejected(usize),
    /// The event at this index (0-based, in the request) is invalid: count it as failed
    /// and resend the others (an intake that names the first invalid event).
    RejectEvent(usize),
    /// The intake answered each event on its own and some failed (a bulk answer with
    /// per-item statuses): which ones, and whether to resend them, is read from the
    /// response body with `Codec::items`.
    Items,
}

/// Per-event results of a request the intake answered item by item ([`Outcome::Items`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ItemResults {
    /// Indexes (0-based, in the request) of the events that failed transiently (429, 5xx):
    /// resend only these.
    pub retry: Vec<usize>,
    /// Indexes of the events the intake will never accept as sent (mapping errors, other
    /// 4xx): counted as failed, never resent.
    pub rejected: Vec<usize>,
    /// Events the intake already held (a `409` for the `create` of a document id it
    /// stores already): stored by an earlier request, so delivered, never resent, never
    /// failed.
    pub already_delivered: usize,
    /// The first retryable failure, as `status type: reason`, for the report.
    pub retry_error: Option<String>,
    /// The first permanent failure, as `status type: reason`, for the report.
    pub rejected_error: Option<String>,
    /// The status of the first permanent failure (the report's key).
    pub rejected_status: Option<u16>,
}

/// One line of a vendor's response table: statuses `from..=to` mean `outcome`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rule {
    from: u16,
    to: u16,
    outcome: Outcome,
}

impl Rule {
    /// A range of statuses.
    pub(crate) const fn range(from: u16, to: u16, outcome: Outcome) -> Rule {
        Rule { from, to, outcome }
    }

    /// A single status.
    pub(crate) const fn one(status: u16, outcome: Outcome) -> Rule {
        Rule {
            from: status,
            to: status,
            outcome,
        }
    }
}

/// The first rule matching `status`; anything unlisted is permanent.
pub(crate) fn by_table(rules: &[Rule], status: u16) -> Outcome {
    rules
        .iter()
        .find(|r| (r.from..=r.to).contains(&status))
        .map_or(Outcome::Permanent, |r| r.outcome)
}

/// HTTP semantics: 2xx delivered; 408, 429 and 5xx (but 501 and 505) retried; 413 split;
/// everything else (other 4xx, unexpected 1xx/3xx) permanent.
pub(crate) fn http_default(status: u16) -> Outcome {
    match status {
        200..=299 => Outcome::Delivered,
        408 | 429 => Outcome::Retry,
        413 => Outcome::TooLarge,
        501 | 505 => Outcome::Permanent,
        500..=599 => Outcome::Retry,
        _ => Outcome::Permanent,
    }
}

/// A hint for the operator about a permanent status.
pub(crate) fn hint(status: u16) -> &'static str {
    match status {
        400 => "the intake rejected the request as malformed: check the vendor and format settings",
        401 | 403 => "the credentials were rejected: check the API key or authorization header",
        404 => "the endpoint was not found: check the endpoint URL and its path",
        405 => "the endpoint does not accept POST: check the endpoint URL",
        300..=399 => "the endpoint redirects, which logship does not follow for POSTs: set the final URL as the endpoint",
        _ => "the intake will not accept these events as sent",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_outcomes() {
        for (status, want) in [
            (200, Outcome::Delivered),
            (202, Outcome::Delivered),
            (204, Outcome::Delivered),
            (408, Outcome::Retry),
            (429, Outcome::Retry),
            (500, Outcome::Retry),
            (502, Outcome::Retry),
            (503, Outcome::Retry),
            (504, Outcome::Retry),
            (501, Outcome::Permanent),
            (400, Outcome::Permanent),
            (401, Outcome::Permanent),
            (403, Outcome::Permanent),
            (404, Outcome::Permanent),
            (302, Outcome::Permanent),
            (413, Outcome::TooLarge),
        ] {
            assert_eq!(http_default(status), want, "status {status}");
        }
    }
}
