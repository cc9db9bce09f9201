//! What one sender needs to deliver batches: the pipeline's state, the pool, the codec,
//! the HTTP client and the retry settings.
//!
//! Why it exists: live senders, the replayer and the acknowledgement poller all deliver
//! the same way and differ only in how often they retry; one small value carries what
//! they share, and the attempt itself (`attempt`) and the threads (`thread`) are written
//! against it. Must never: hold a batch of its own.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::backoff::Backoff;
use super::http::Client;
use super::pool::Pool;
use crate::pipeline::shared::Shared;
use crate::vendors::codec::Codec;
use crate::vendors::Transport;

/// What a sender needs to deliver batches.
#[derive(Clone)]
pub(crate) struct Sender {
    pub shared: Arc<Shared>,
    pub pool: Arc<Pool>,
    pub codec: Arc<Codec>,
    pub client: Client,
    pub gzip: Option<u32>,
    pub max_retries: u32,
    pub backoff: Backoff,
    /// Whether a success answer must still be acknowledged (see `acks`): the accepted
    /// part then waits for its acknowledgement id to be confirmed.
    pub awaits_ack: bool,
    /// The vendor's own client when its wire is not HTTP (a message broker's producer): batches go
    /// through it instead of `client` (see `transport`).
    pub transport: Option<Arc<Transport>>,
}

impl Sender {
    /// Says once that acknowledgements are on but a success answer carries no id.
    pub(crate) fn tell_missing_ack_id(&self) {
        if !self.pool.told_missing_ack_id.swap(true, Ordering::AcqRel) {
            self.shared.reporter.notice(self.codec.missing_ack_id());
        }
    }
}
