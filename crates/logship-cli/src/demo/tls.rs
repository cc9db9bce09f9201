//! `logship demo --tls`: HTTPS to the embedded intake with a throwaway CA.
//!
//! A CA and a certificate for 127.0.0.1 and localhost are generated for this run only
//! (nothing is installed anywhere); the CA's certificate is written to a private file the
//! pipeline trusts through `tls_ca_file`, exactly as a user would trust an internal CA,
//! and the file is removed when the demo ends.

use std::path::PathBuf;

use logship_http::tls::{ThrowawayCa, TlsServer};

use logship_cli::exit::Failure;

/// The intake's TLS set-up and the CA file the pipeline trusts (removed on drop).
pub struct DemoTls {
    pub server: TlsServer,
    pub ca_file: PathBuf,
}

impl DemoTls {
    /// Generates the CA and the server certificate, and writes the CA file.
    pub fn new() -> Result<DemoTls, Failure> {
        let fail = |e: &dyn std::fmt::Display| Failure::runtime(format!("--tls: {e}"));
        let ca = ThrowawayCa::new("logship demo CA (throwaway)").map_err(|e| fail(&e))?;
        let cert = ca
            .server_cert(&["127.0.0.1", "localhost"])
            .map_err(|e| fail(&e))?;
        let server =
            TlsServer::from_pem(&cert.cert_pem, &cert.key_pem, None).map_err(|e| fail(&e))?;
        let ca_file =
            std::env::temp_dir().join(format!("logship-demo-ca-{}.pem", std::process::id()));
        std::fs::write(&ca_file, ca.cert_pem()).map_err(|e| fail(&e))?;
        Ok(DemoTls { server, ca_file })
    }
}

impl Drop for DemoTls {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.ca_file);
    }
}
