//! HTTPS for the test intake and the demo's sink, and throwaway certificate authorities
//! to test it with (the `tls` feature).
//!
//! Why it exists: every real intake is HTTPS, so logship's TLS trust, client certificates
//! and error messages must be exercised against a real TLS server. [`TlsServer`] turns PEM
//! files (or strings) into a rustls server configuration, optionally requiring client
//! certificates signed by a given CA (mTLS); a server's connection threads wrap each
//! accepted socket in it with [`accept`]. [`ThrowawayCa`] generates a CA and certificates
//! signed by it (valid, expired, not yet valid, for other names, for clients) with
//! `rcgen`, for tests and for `logship demo --tls`. Nothing here is meant for production:
//! keys live in memory and are generated on the spot. It must never print a private key.

mod conn;
mod server;
mod throwaway_ca;

pub use conn::{accept, Conn};
pub use server::{TlsServer, TlsSetupError};
pub use throwaway_ca::{IssuedCert, ThrowawayCa, Validity};
