//! A server's TLS set-up: its certificate chain and key, and for mTLS the CA client
//! certificates must chain to, as a rustls configuration. Must never print a key.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig};

/// A TLS set-up a server cannot use (a file missing, a PEM block that does not parse, a
/// key that does not match its certificate). The message names the file or the part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSetupError(pub String);

impl std::fmt::Display for TlsSetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TlsSetupError {}

/// How a server serves HTTPS: its certificate chain and key, and (for mTLS) the CA that
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

    /// From PEM files (`logship-intake --tls-cert F --tls-key K [--client-ca CA]`).
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
