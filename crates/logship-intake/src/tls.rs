//! HTTPS for the intake, and throwaway certificate authorities to test it with.
//!
//! Why it exists: every real intake is HTTPS, so logship's TLS trust, client certificates
//! and error messages must be exercised against a real TLS server. [`TlsServer`] turns PEM
//! files (or strings) into a rustls server configuration, optionally requiring client
//! certificates signed by a given CA (mTLS); the connection threads wrap each accepted
//! socket in it. [`ThrowawayCa`] generates a CA and certificates signed by it (valid,
//! expired, not yet valid, for other names, for clients) with `rcgen`, for tests and for
//! `logship demo --tls`. Nothing here is meant for production: keys live in memory and are
//! generated on the spot. It must never print a private key.

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig, ServerConnection, StreamOwned};

/// A TLS set-up the intake cannot use (a file missing, a PEM block that does not parse, a
/// key that does not match its certificate). The message names the file or the part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSetupError(pub String);

impl std::fmt::Display for TlsSetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TlsSetupError {}

/// How the intake serves HTTPS: its certificate chain and key, and (for mTLS) the CA that
/// client certificates must be signed by.
#[derive(Clone)]
pub struct TlsServer {
    pub(crate) config: Arc<ServerConfig>,
    /// Whether a client certificate is required.
    pub client_auth: bool,
}

impl std::fmt::Debug for TlsServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsServer")
            .field("client_auth", &self.client_auth)
            .finish_non_exhaustive()
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

impl TlsServer {
    /// From PEM text: the certificate chain (leaf first), its private key, and optionally
    /// the CA bundle client certificates must chain to (then one is required).
    pub fn from_pem(
        cert_chain: &str,
        key: &str,
        client_ca: Option<&str>,
    ) -> Result<TlsServer, TlsSetupError> {
        let chain = certs("the certificate", cert_chain.as_bytes())?;
        let key = PrivateKeyDer::from_pem_slice(key.as_bytes())
            .map_err(|e| TlsSetupError(format!("the private key does not parse: {e}")))?;
        let builder = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| TlsSetupError(e.to_string()))?;
        let builder = match client_ca {
            None => builder.with_no_client_auth(),
            Some(pem) => {
                let mut roots = RootCertStore::empty();
                for c in certs("the client CA", pem.as_bytes())? {
                    roots.add(c).map_err(|e| {
                        TlsSetupError(format!("the client CA is not a usable certificate: {e}"))
                    })?;
                }
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider())
                        .build()
                        .map_err(|e| TlsSetupError(format!("the client CA cannot be used: {e}")))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let mut config = builder.with_single_cert(chain, key).map_err(|e| {
            TlsSetupError(format!(
                "the certificate and key cannot be used together: {e}"
            ))
        })?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(TlsServer {
            config: Arc::new(config),
            client_auth: client_ca.is_some(),
        })
    }

    /// From PEM files (`logship intake --tls-cert F --tls-key K [--client-ca CA]`).
    pub fn from_files(
        cert: &Path,
        key: &Path,
        client_ca: Option<&Path>,
    ) -> Result<TlsServer, TlsSetupError> {
        let read = |what: &str, p: &Path| {
            std::fs::read_to_string(p)
                .map_err(|e| TlsSetupError(format!("{what} {}: {e}", p.display())))
        };
        let cert_pem = read("--tls-cert", cert)?;
        let key_pem = read("--tls-key", key)?;
        let ca_pem = client_ca.map(|p| read("--client-ca", p)).transpose()?;
        TlsServer::from_pem(&cert_pem, &key_pem, ca_pem.as_deref())
    }
}

fn certs(what: &str, pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, TlsSetupError> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<_, _>>()
        .map_err(|e| TlsSetupError(format!("{what} does not parse as PEM: {e}")))?;
    if certs.is_empty() {
        return Err(TlsSetupError(format!(
            "{what} holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
        )));
    }
    Ok(certs)
}

/// A certificate and its private key, both PEM.
#[derive(Clone)]
pub struct IssuedCert {
    /// The certificate (PEM).
    pub cert_pem: String,
    /// Its private key (PEM, PKCS#8). A secret: never printed by this crate.
    pub key_pem: String,
}

impl std::fmt::Debug for IssuedCert {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuedCert")
            .field("key_pem", &"[redacted]")
            .finish_non_exhaustive()
    }
}

/// When a certificate is valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Validity {
    /// From 2020 to 2100.
    Current,
    /// 2000 to 2001: expired.
    Expired,
    /// 2090 to 2100: not valid yet.
    NotYetValid,
}

/// A certificate authority generated in memory, with certificates signed by it.
pub struct ThrowawayCa {
    issuer: rcgen::Issuer<'static, rcgen::KeyPair>,
    cert_pem: String,
}

impl std::fmt::Debug for ThrowawayCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThrowawayCa").finish_non_exhaustive()
    }
}

fn rcgen_error(e: rcgen::Error) -> TlsSetupError {
    TlsSetupError(format!("could not generate a certificate: {e}"))
}

impl ThrowawayCa {
    /// A new CA whose certificate's common name is `name`.
    pub fn new(name: &str) -> Result<ThrowawayCa, TlsSetupError> {
        let mut params =
            rcgen::CertificateParams::new(Vec::<String>::new()).map_err(rcgen_error)?;
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.key_usages = vec![
            rcgen::KeyUsagePurpose::KeyCertSign,
            rcgen::KeyUsagePurpose::CrlSign,
            rcgen::KeyUsagePurpose::DigitalSignature,
        ];
        params.not_before = rcgen::date_time_ymd(2020, 1, 1);
        params.not_after = rcgen::date_time_ymd(2100, 1, 1);
        let key = rcgen::KeyPair::generate().map_err(rcgen_error)?;
        let cert = params.self_signed(&key).map_err(rcgen_error)?;
        Ok(ThrowawayCa {
            issuer: rcgen::Issuer::new(params, key),
            cert_pem: cert.pem(),
        })
    }

    /// The CA's certificate (PEM): what a client must trust.
    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// A server certificate for `names` (DNS names or IP addresses), valid now.
    pub fn server_cert(&self, names: &[&str]) -> Result<IssuedCert, TlsSetupError> {
        self.issue(names, Validity::Current, false)
    }

    /// A client certificate (for mTLS) with common name `name`.
    pub fn client_cert(&self, name: &str) -> Result<IssuedCert, TlsSetupError> {
        self.issue(&[name], Validity::Current, true)
    }

    /// A certificate for `names` with the given validity, for a server or a client.
    pub fn issue(
        &self,
        names: &[&str],
        validity: Validity,
        client: bool,
    ) -> Result<IssuedCert, TlsSetupError> {
        let sans: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let mut params = rcgen::CertificateParams::new(sans).map_err(rcgen_error)?;
        if let Some(first) = names.first() {
            params
                .distinguished_name
                .push(rcgen::DnType::CommonName, *first);
        }
        let (from, to) = match validity {
            Validity::Current => ((2020, 1, 1), (2100, 1, 1)),
            Validity::Expired => ((2000, 1, 1), (2001, 1, 1)),
            Validity::NotYetValid => ((2090, 1, 1), (2100, 1, 1)),
        };
        params.not_before = rcgen::date_time_ymd(from.0, from.1, from.2);
        params.not_after = rcgen::date_time_ymd(to.0, to.1, to.2);
        params.extended_key_usages = vec![if client {
            rcgen::ExtendedKeyUsagePurpose::ClientAuth
        } else {
            rcgen::ExtendedKeyUsagePurpose::ServerAuth
        }];
        let key = rcgen::KeyPair::generate().map_err(rcgen_error)?;
        let cert = params.signed_by(&key, &self.issuer).map_err(rcgen_error)?;
        Ok(IssuedCert {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        })
    }
}

/// One accepted connection: plain TCP, or TLS over it. Clones share the connection (the
/// reading and the writing half of one connection thread), so a TLS clone is `Rc`-shared
/// and never leaves its thread.
pub(crate) enum Conn {
    Plain(TcpStream),
    Tls(Rc<RefCell<StreamOwned<ServerConnection, TcpStream>>>),
}

impl Conn {
    /// A second handle on the same connection.
    pub(crate) fn try_clone(&self) -> io::Result<Conn> {
        Ok(match self {
            Conn::Plain(s) => Conn::Plain(s.try_clone()?),
            Conn::Tls(s) => Conn::Tls(Rc::clone(s)),
        })
    }

    /// Shuts the connection down (TLS: sends `close_notify` first when writing ends).
    pub(crate) fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        match self {
            Conn::Plain(s) => s.shutdown(how),
            Conn::Tls(s) => {
                let mut s = s.borrow_mut();
                if how != Shutdown::Read {
                    s.conn.send_close_notify();
                    let _ = s.flush();
                }
                s.sock.shutdown(how)
            }
        }
    }

    /// Runs `f` on the TCP socket underneath (for socket options such as linger).
    pub(crate) fn with_socket<R>(&self, f: impl FnOnce(&TcpStream) -> R) -> R {
        match self {
            Conn::Plain(s) => f(s),
            Conn::Tls(s) => f(&s.borrow().sock),
        }
    }

    /// Sets the read timeout of the socket underneath.
    pub(crate) fn set_read_timeout(&self, d: Option<std::time::Duration>) -> io::Result<()> {
        match self {
            Conn::Plain(s) => s.set_read_timeout(d),
            Conn::Tls(s) => s.borrow().sock.set_read_timeout(d),
        }
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.read(buf),
            Conn::Tls(s) => s.borrow_mut().read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.write(buf),
            Conn::Tls(s) => s.borrow_mut().write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Conn::Plain(s) => s.flush(),
            Conn::Tls(s) => s.borrow_mut().flush(),
        }
    }
}

/// Runs the TLS handshake on `tcp` (bounded by the socket's timeouts); the error says why
/// it failed (the client sent plain HTTP, refused our certificate, sent no certificate).
pub(crate) fn accept(server: &TlsServer, mut tcp: TcpStream) -> Result<Conn, String> {
    let mut conn = ServerConnection::new(Arc::clone(&server.config)).map_err(|e| e.to_string())?;
    while conn.is_handshaking() {
        match conn.complete_io(&mut tcp) {
            Ok((0, 0)) if conn.wants_read() => {
                return Err("the client closed the connection during the handshake".into())
            }
            Ok(_) => {}
            Err(e) => {
                // Let the client read the alert rustls queued, if any: send it, stop
                // writing, and read what the client still sends (its request, in TLS 1.3
                // where it finished its side first) so that closing does not reset the
                // connection before the alert is read.
                let _ = conn.write_tls(&mut tcp);
                let _ = tcp.shutdown(Shutdown::Write);
                let _ = tcp.set_read_timeout(Some(std::time::Duration::from_secs(1)));
                let mut sink = [0u8; 8192];
                let mut drained = 0usize;
                while drained < 1 << 20 {
                    match tcp.read(&mut sink) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => drained += n,
                    }
                }
                return Err(e.to_string());
            }
        }
    }
    Ok(Conn::Tls(Rc::new(RefCell::new(StreamOwned::new(
        conn, tcp,
    )))))
}
