//! TLS trust, client certificates, and what a failed handshake means.
//!
//! Why it exists: self-hosted intakes sit behind a company's own CA, which is installed in
//! the operating system's trust store, not in a built-in root list. This loads, at
//! `build()`, the roots a pipeline trusts: the system store (`SSL_CERT_FILE` /
//! `SSL_CERT_DIR` when set, as OpenSSL reads them), else the built-in Mozilla list as a
//! fallback, plus `tls_ca_file`; and the client certificate for mutual TLS. A file that is
//! missing or does not parse fails the build naming the option and the file. After that,
//! [`describe`] turns a handshake failure into a sentence a person can act on, and marks
//! it as one that will not fix itself in 200 ms. It must never show a private key.

use std::path::Path;

use rustls::pki_types::CertificateDer;
use rustls::{AlertDescription, CertificateError, InvalidMessage};
use ureq::tls::{Certificate, ClientCert, PemItem, PrivateKey, RootCerts, TlsConfig};

use crate::config::Config;
use crate::error::ConfigError;

/// The TLS half of a pipeline's network set-up.
pub(crate) struct Trust {
    pub config: TlsConfig,
    /// Which roots are trusted, in words (for `config check`).
    pub summary: String,
    /// The client certificate's file, when one is presented.
    pub client_cert: Option<String>,
}

/// Loads what `config` trusts and presents. `needs_roots`: whether anything is reached
/// over TLS (else the system store is not read at all).
pub(crate) fn load(config: &Config, needs_roots: bool) -> Result<Trust, ConfigError> {
    let extra = match &config.tls_ca_file {
        Some(path) => read_certs("tls_ca_file", path)?,
        None => Vec::new(),
    };
    let client = client_cert(config)?;
    let mut builder = TlsConfig::builder().client_cert(client.clone());
    if !config.tls_verify {
        builder = builder.disable_verification(true);
    }
    let (roots, summary) = if !needs_roots {
        (
            RootCerts::WebPki,
            "not used (no https:// endpoint or proxy)".to_owned(),
        )
    } else {
        roots(extra, config.tls_ca_file.as_deref())
    };
    let summary = if config.tls_verify {
        summary
    } else {
        format!("NONE: tls_verify = false accepts any certificate ({summary} ignored)")
    };
    Ok(Trust {
        config: builder.root_certs(roots).build(),
        summary,
        client_cert: client
            .is_some()
            .then(|| shown(config.tls_client_cert.as_deref())),
    })
}

fn shown(path: Option<&Path>) -> String {
    path.map(|p| p.display().to_string()).unwrap_or_default()
}

/// The system's roots (or the built-in list where it has none) plus `extra`.
fn roots(extra: Vec<Certificate<'static>>, ca_file: Option<&Path>) -> (RootCerts, String) {
    let system = rustls_native_certs::load_native_certs();
    let source = system_store_name();
    let mut summary;
    let mut all: Vec<Certificate<'static>>;
    if system.certs.is_empty() {
        all = webpki_root_certs::TLS_SERVER_ROOT_CERTS
            .iter()
            .map(|c| Certificate::from_der(c.as_ref()).to_owned())
            .collect();
        summary = format!(
            "the built-in Mozilla root list ({} certificates): this machine has no trust store{}",
            all.len(),
            source
                .map(|s| format!(" ({s} has no certificate)"))
                .unwrap_or_default()
        );
    } else {
        all = system
            .certs
            .iter()
            .map(|c| Certificate::from_der(c.as_ref()).to_owned())
            .collect();
        summary = format!(
            "the system trust store{} ({} certificates)",
            source.map(|s| format!(", {s}")).unwrap_or_default(),
            all.len()
        );
    }
    if let Some(path) = ca_file {
        summary.push_str(&format!(
            " + tls_ca_file {} ({} certificates)",
            path.display(),
            extra.len()
        ));
    }
    all.extend(extra);
    (RootCerts::new_with_certs(&all), summary)
}

/// Where the system store is read from, in words.
fn system_store_name() -> Option<String> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(f) = var("SSL_CERT_FILE") {
        return Some(format!("SSL_CERT_FILE={}", Path::new(&f).display()));
    }
    if let Some(d) = var("SSL_CERT_DIR") {
        return Some(format!("SSL_CERT_DIR={}", Path::new(&d).display()));
    }
    [
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/pki/tls/certs/ca-bundle.crt",
        "/etc/ssl/ca-bundle.pem",
        "/etc/ssl/cert.pem",
    ]
    .iter()
    .find(|p| Path::new(p).is_file())
    .map(|p| p.to_string())
}

/// Every certificate of the PEM bundle at `path`; an error names `field` and the file.
fn read_certs(field: &'static str, path: &Path) -> Result<Vec<Certificate<'static>>, ConfigError> {
    let shown = path.display().to_string();
    let pem = std::fs::read(path).map_err(|e| {
        ConfigError::new(field, &shown, format!("cannot be read: {e}"))
            .fix("point it at a PEM file (-----BEGIN CERTIFICATE-----)")
    })?;
    let mut certs = Vec::new();
    for item in ureq::tls::parse_pem(&pem) {
        match item {
            Ok(PemItem::Certificate(c)) => certs.push(c),
            Ok(_) => {}
            Err(e) => {
                return Err(ConfigError::new(
                    field,
                    &shown,
                    format!("does not parse as PEM: {e}"),
                ))
            }
        }
    }
    if certs.is_empty() {
        return Err(ConfigError::new(field, &shown, "holds no PEM certificate")
            .fix("a PEM bundle has one or more -----BEGIN CERTIFICATE----- blocks"));
    }
    // Each must be a certificate rustls can use as a trust anchor.
    for c in &certs {
        let mut store = rustls::RootCertStore::empty();
        if let Err(e) = store.add(CertificateDer::from(c.der())) {
            return Err(ConfigError::new(
                field,
                &shown,
                format!("holds a certificate that cannot be used: {e}"),
            ));
        }
    }
    Ok(certs)
}

/// The client certificate and key, when both are set; an error when only one is.
fn client_cert(config: &Config) -> Result<Option<ClientCert>, ConfigError> {
    let (cert, key) = match (&config.tls_client_cert, &config.tls_client_key) {
        (None, None) => return Ok(None),
        (Some(c), Some(k)) => (c, k),
        (Some(c), None) => {
            return Err(
                ConfigError::new("tls_client_cert", c.display(), "needs tls_client_key")
                    .fix("set tls_client_key to the PEM file of its private key"),
            )
        }
        (None, Some(k)) => {
            return Err(
                ConfigError::new("tls_client_key", k.display(), "needs tls_client_cert")
                    .fix("set tls_client_cert to the PEM file of the certificate"),
            )
        }
    };
    let chain = read_certs("tls_client_cert", cert)?;
    let shown = key.display().to_string();
    // The key file's contents are a secret: errors name the file only.
    let pem = std::fs::read(key)
        .map_err(|e| ConfigError::new("tls_client_key", &shown, format!("cannot be read: {e}")))?;
    let key = ureq::tls::parse_pem(&pem)
        .find_map(|item| match item {
            Ok(PemItem::PrivateKey(k)) => Some(k),
            _ => None,
        })
        .ok_or_else(|| {
            ConfigError::new("tls_client_key", &shown, "holds no PEM private key")
                .fix("a PEM key starts with -----BEGIN PRIVATE KEY----- (or RSA/EC PRIVATE KEY)")
        })?;
    let key: PrivateKey<'static> = key.to_owned();
    Ok(Some(ClientCert::new_with_certs(&chain, key)))
}

/// Whether `error` is about TLS, and what to say: `None` when it is not.
pub(crate) fn describe(error: &ureq::Error, host: &str, https: bool) -> Option<String> {
    if let Some(rustls) = rustls_error(error) {
        return Some(rustls_message(rustls, host));
    }
    match error {
        ureq::Error::Tls(what) => Some(format!("TLS with {host} failed: {what}")),
        // A plain request whose answer does not even parse as HTTP: a TLS server's alert.
        ureq::Error::Protocol(e) if !https => Some(format!(
            "{host} answered http:// with something that is not HTTP ({e}): this port most likely serves HTTPS; use https:// in the endpoint"
        )),
        _ => None,
    }
}

/// What a TLS-terminating server's own HTTP error page means, when it is one (nginx
/// answers a plain request on its TLS port, and a missing or refused client certificate,
/// with a 400 whose page says so); `None` for any other answer.
pub(crate) fn server_tls_page(status: u16, body: &[u8], host: &str) -> Option<String> {
    if status != 400 || body.len() > 64 * 1024 {
        return None;
    }
    let page = String::from_utf8_lossy(body);
    if page.contains("plain HTTP request was sent to HTTPS port") {
        Some(format!(
            "{host} answered 400 \"The plain HTTP request was sent to HTTPS port\": the endpoint says http:// but this port serves HTTPS; use https://"
        ))
    } else if page.contains("No required SSL certificate was sent") {
        Some(format!(
            "{host} answered 400 \"No required SSL certificate was sent\": it requires a client certificate: set tls_client_cert and tls_client_key"
        ))
    } else if page.contains("The SSL certificate error") {
        Some(format!(
            "{host} refused the client certificate (400 \"The SSL certificate error\"): check that tls_client_cert is signed by a CA the server trusts, and is not expired"
        ))
    } else {
        None
    }
}

/// The rustls error inside `error`, if any (ureq passes handshake errors through io).
fn rustls_error(error: &ureq::Error) -> Option<&rustls::Error> {
    match error {
        ureq::Error::Rustls(e) => Some(e),
        ureq::Error::Io(io) => io.get_ref()?.downcast_ref::<rustls::Error>(),
        _ => None,
    }
}

fn rustls_message(e: &rustls::Error, host: &str) -> String {
    use rustls::Error as E;
    match e {
        E::InvalidCertificate(c) => match c {
            CertificateError::UnknownIssuer => format!(
                "the certificate of {host} is signed by a CA this machine does not trust: add it to the system trust store or set tls_ca_file"
            ),
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => format!(
                "the certificate of {host} is not valid for the name {host} (hostname mismatch): use the name the certificate was issued for in the endpoint, or get a certificate for this name ({c})"
            ),
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => format!(
                "the certificate of {host} has expired ({c}): renew it on the server (or check this machine's clock)"
            ),
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => format!(
                "the certificate of {host} is not valid yet ({c}): check this machine's clock, or the certificate's start date"
            ),
            other => format!("the certificate of {host} was refused: {other}"),
        },
        E::AlertReceived(
            AlertDescription::CertificateRequired | AlertDescription::HandshakeFailure,
        ) => format!(
            "{host} refused the TLS handshake ({e}): it probably requires a client certificate: set tls_client_cert and tls_client_key"
        ),
        E::AlertReceived(
            AlertDescription::BadCertificate
            | AlertDescription::UnknownCA
            | AlertDescription::CertificateUnknown
            | AlertDescription::UnsupportedCertificate
            | AlertDescription::CertificateRevoked
            | AlertDescription::CertificateExpired
            | AlertDescription::AccessDenied,
        ) => format!(
            "{host} refused the client certificate ({e}): check that tls_client_cert is signed by a CA the server trusts, and is not expired"
        ),
        E::InvalidMessage(InvalidMessage::InvalidContentType)
        | E::InvalidMessage(InvalidMessage::UnknownProtocolVersion)
        | E::InvalidMessage(InvalidMessage::MessageTooLarge) => format!(
            "{host} answered in plain HTTP, not TLS: the endpoint says https:// but this port serves plain http; use http:// (or the server's TLS port)"
        ),
        other => format!("TLS with {host} failed: {other}"),
    }
}
