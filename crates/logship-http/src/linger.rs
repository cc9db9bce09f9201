//! Closing a connection whose request was not read to its end without losing the answer.
//!
//! Why it exists: a TCP socket closed with unread bytes in its receive buffer sends a
//! reset, not an end of stream, and the reset can reach the client before it has read the
//! answer written just before: the client then sees "connection reset" or a broken pipe
//! instead of the 503 or 413 it was sent. So a server that answers early (a refusal, a
//! body over the limit) "lingers", as nginx and Go's `net/http` do: it ends its own
//! sending side, then reads and discards what the client still sends, until the client
//! closes or a short deadline passes.
//!
//! Must never: wait past the caller's bound, read more than [`MAX_DISCARDED`] bytes, or
//! keep what it reads.

use std::io::{ErrorKind, Read};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

/// The most a lingering close reads and discards (a body over a server's limit is read
/// past it, to its end, within the deadline): a client sending more gets the reset.
pub const MAX_DISCARDED: usize = 64 << 20;

/// Ends the answer (shuts down the sending side) and reads what the client still sends
/// until it closes, [`MAX_DISCARDED`] bytes pass, or `within` elapses; the caller then
/// drops the stream.
pub fn close_after_answer(stream: &TcpStream, within: Duration) {
    if stream.shutdown(Shutdown::Write).is_err() {
        return; // already reset or closed by the client: nothing to protect
    }
    let deadline = Instant::now() + within;
    let mut sink = [0u8; 8 * 1024];
    let mut discarded = 0usize;
    let mut reader = stream;
    while discarded < MAX_DISCARDED {
        let Some(wait) = deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
        else {
            return;
        };
        if stream.set_read_timeout(Some(wait)).is_err() {
            return;
        }
        match reader.read(&mut sink) {
            Ok(0) => return,
            Ok(n) => discarded += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::TcpListener;

    /// A client that sends its request in pieces, the server answering after the first:
    /// with a plain close the client's later writes meet a reset; lingering, every write
    /// succeeds and the whole answer is read.
    #[test]
    fn a_client_still_sending_reads_the_whole_answer() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().expect("accept");
            let mut first = [0u8; 4];
            s.read_exact(&mut first).expect("first bytes");
            s.write_all(b"refused").expect("answer");
            close_after_answer(&s, Duration::from_secs(30));
        });
        let mut client = TcpStream::connect(addr).expect("connect");
        client.write_all(b"POST").expect("first piece");
        // The rest goes only once the answer is there (the server has stopped reading).
        let mut answer = [0u8; 7];
        client.read_exact(&mut answer).expect("the answer");
        for _ in 0..64 {
            client
                .write_all(&[b'x'; 1024])
                .expect("the client keeps sending");
        }
        client.shutdown(Shutdown::Write).expect("client done");
        let mut rest = Vec::new();
        client.read_to_end(&mut rest).expect("an end, not a reset");
        assert_eq!((&answer, rest.len()), (b"refused", 0));
        server.join().expect("server");
    }

    /// A client that neither sends nor closes costs the server `within`, no more.
    #[test]
    fn a_silent_client_is_left_at_the_deadline() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let _client = TcpStream::connect(addr).expect("connect");
        let (s, _) = listener.accept().expect("accept");
        let started = Instant::now();
        close_after_answer(&s, Duration::from_millis(50));
        assert!(started.elapsed() >= Duration::from_millis(50));
    }

    /// A client sending without end is left after `MAX_DISCARDED` bytes, whatever the
    /// deadline.
    #[test]
    fn a_client_that_never_stops_sending_is_left_after_the_cap() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let writer = std::thread::spawn(move || {
            let mut c = TcpStream::connect(addr).expect("connect");
            let chunk = [b'y'; 64 * 1024];
            let mut sent = 0usize;
            while c.write_all(&chunk).is_ok() {
                sent += chunk.len();
            }
            sent
        });
        let (s, _) = listener.accept().expect("accept");
        let started = Instant::now();
        close_after_answer(&s, Duration::from_secs(120));
        assert!(started.elapsed() < Duration::from_secs(120));
        drop(s);
        let sent = writer.join().expect("writer");
        assert!(sent >= MAX_DISCARDED, "{sent}");
    }
}
