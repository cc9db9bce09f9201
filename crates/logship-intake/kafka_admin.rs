//! Topic creation and a reading client on a test broker ([`crate::kafka_broker`] of
//! logship-intake), shared as source by the Kafka tests and the Kafka bench (`#[path]`),
//! which have librdkafka through
//! the `kafka` feature; logship-intake itself does not depend on librdkafka (every test
//! build would compile it).

use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::BaseConsumer;

/// Creates `topic` with `partitions` (replication 1) and topic configs such as
/// `max.message.bytes`, on the broker at `bootstrap`; panics when the broker refuses.
pub fn create_topic(bootstrap: &str, topic: &str, partitions: i32, configs: &[(&str, &str)]) {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()
        .expect("admin client");
    let mut new = NewTopic::new(topic, partitions, TopicReplication::Fixed(1));
    for (k, v) in configs {
        new = new.set(k, v);
    }
    let results = block_on(admin.create_topics([&new], &AdminOptions::new()))
        .unwrap_or_else(|e| panic!("create topic {topic}: {e}"));
    for r in results {
        r.unwrap_or_else(|e| panic!("create topic {topic}: {e:?}"));
    }
}

/// A consumer in group `group` on the broker at `bootstrap` that reads a topic from its
/// first offset and commits nothing; not subscribed, it reads the group's committed
/// offsets without joining the group.
#[allow(dead_code)] // not every file that includes this module reads a topic
pub fn reader(bootstrap: &str, group: &str) -> BaseConsumer {
    ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", group)
        .set("auto.offset.reset", "earliest")
        .set("enable.auto.commit", "false")
        .create()
        .expect("a reading consumer")
}

/// Drives a future to completion on this thread (rdkafka's admin futures complete from
/// librdkafka's own threads: no runtime needed).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut f = std::pin::pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park_timeout(Duration::from_millis(50));
    }
}
