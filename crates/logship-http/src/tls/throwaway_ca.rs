//! A certificate authority generated in memory, and the certificates it signs (with
//! `rcgen`), for tests and `logship demo --tls`. Must never print a private key.

use super::server::TlsSetupError;

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
