//! The server side of HTTP/1.1 that logship's own servers share: the test intake
//! (`logship-intake`), `logship ship --listen http://` and the sink of `logship demo`.
//!
//! - [`read_request`]: a request head and a bounded body (chunked bodies, `Expect:
//!   100-continue`), hand-written so that every byte a client sends can be observed;
//!   [`find_header`] and the accessors of [`Request`] read it.
//! - [`decoded_body`]: the body with its `Content-Encoding` (gzip, deflate) undone,
//!   within a limit.
//! - [`Response`] and [`write_response`]: an answer, with the framing owned here;
//!   [`close_after_answer`]: the close after an early answer that does not lose it.
//! - [`answers`]: each vendor's answer bodies and the small parsers a receiver needs to
//!   answer like the vendor.
//! - `tls` (feature `tls`): HTTPS for a server, and throwaway certificate authorities.
//!
//! Why a crate of its own: the `logship` binary that users install must not carry the
//! test intake, yet its listener needs the same hardened parser the intake uses. Must
//! never: panic on any bytes a peer sends, read or inflate past a caller's limit, or
//! listen anywhere (the servers that use it bind their own sockets).
//!
//! ```
//! use std::io::BufReader;
//!
//! let raw = b"POST /logs HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}";
//! let mut continues = Vec::new();
//! let req = logship_http::read_request(&mut BufReader::new(&raw[..]), &mut continues, 1024)
//!     .expect("a request")
//!     .expect("not the end of the connection");
//! assert_eq!((req.path(), req.body.as_slice()), ("/logs", &b"{}"[..]));
//!
//! let mut out = Vec::new();
//! logship_http::write_response(&mut out, &logship_http::answers::generic::accepted(0), false)
//!     .expect("written");
//! assert!(out.starts_with(b"HTTP/1.1 200 OK\r\n"));
//! ```

pub mod answers;
mod body;
mod linger;
mod request;
mod response;
#[cfg(feature = "tls")]
pub mod tls;

pub use body::{decoded_body, BodyError};
pub use linger::{close_after_answer, MAX_DISCARDED};
pub use request::{find_header, read_request, PartialHead, ReadError, Request};
pub use response::{write_response, Response};
