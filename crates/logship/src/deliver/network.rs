//! A pipeline's network set-up (TLS trust, client certificate, proxy), decided once.
//!
//! Why it exists: the trust store, the client certificate and the proxy are read and
//! checked at `build()`, so a missing file or a bad proxy URL fails at start-up naming
//! the option, never at the first request. [`NetworkSummary`] is the same decision in
//! words, for `logship config check` and for users who want to log it. It holds no
//! secret: proxy credentials and key contents never appear in it.

use super::proxy::{self, ProxyChoice};
use super::tls::{self, Trust};
use crate::config::Config;
use crate::error::ConfigError;
use crate::vendors::codec::Codec;

/// The warning shown at start-up and by `config check` when verification is off.
pub(crate) const VERIFY_OFF_WARNING: &str = "warning: tls_verify = false: the intake's TLS certificate is NOT verified, so anyone on the network path can read and change what is sent (API keys included); for development only";

/// What a pipeline's connections use.
pub(crate) struct Network {
    pub trust: Trust,
    pub proxy: ProxyChoice,
}

impl Network {
    /// The proxy's credentials as they could come back in an answer: the password, and the
    /// `Proxy-Authorization` value (`Basic <token>`; the scrubber also knows the token
    /// alone). For the scrubber; never shown.
    pub(crate) fn secrets(&self) -> Vec<String> {
        let Some(proxy) = &self.proxy.proxy else {
            return Vec::new();
        };
        let Some(password) = proxy.password() else {
            return Vec::new();
        };
        let password = crate::support::secret::Secret::new(password);
        let authorization =
            crate::support::http_auth::basic_auth(proxy.username().unwrap_or(""), &password);
        vec![password.expose().to_owned(), authorization]
    }

    /// Reads the trust store, the client certificate and the proxy for `url`.
    pub(crate) fn load(
        config: &Config,
        url: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Network, ConfigError> {
        let proxy = proxy::choose(config.proxy.as_deref(), url, env)?;
        let https_proxy = proxy
            .proxy
            .as_ref()
            .is_some_and(|p| p.protocol() == ureq::ProxyProtocol::Https);
        let needs_roots = starts_with_ci(url, "https://") || https_proxy;
        let trust = tls::load(config, needs_roots)?;
        Ok(Network { trust, proxy })
    }
}

fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.get(..prefix.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
}

/// How a pipeline will connect, in words: which certificates it trusts, which client
/// certificate it presents, which proxy it goes through, and any warning (verification
/// off). Never shows a secret.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct NetworkSummary {
    /// The URL requests go to (query and user-info hidden).
    pub endpoint: String,
    /// Which roots are trusted: the system trust store (and where it was read from), or
    /// the built-in list where the system has none, plus `tls_ca_file`.
    pub trust: String,
    /// The client certificate's file, when one is presented.
    pub client_cert: Option<String>,
    /// The proxy (without credentials) and where it came from, or why there is none.
    pub proxy: String,
    /// Warnings to show (verification turned off).
    pub warnings: Vec<String>,
}

impl NetworkSummary {
    /// Loads the trust store, the client certificate and the proxy as `build()` would
    /// (with this process's environment), and describes them. Fails as `build()` would
    /// on a missing or unparsable certificate file or an unusable proxy URL.
    pub fn of(config: &Config) -> Result<NetworkSummary, ConfigError> {
        let codec = Codec::new(config)?;
        let url = codec.url().to_owned();
        let network = Network::load(config, &url, &|k| std::env::var(k).ok())?;
        Ok(network.summary(config, &url))
    }
}

impl Network {
    /// This set-up in words.
    pub(crate) fn summary(&self, config: &Config, url: &str) -> NetworkSummary {
        NetworkSummary {
            endpoint: crate::config::redact_url(url),
            trust: self.trust.summary.clone(),
            client_cert: self.trust.client_cert.clone(),
            proxy: self.proxy.summary.clone(),
            warnings: if config.tls_verify {
                Vec::new()
            } else {
                vec![VERIFY_OFF_WARNING.to_owned()]
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proxy_password_and_its_basic_token_are_secrets() {
        let config = Config {
            proxy: Some("http://prxuser:pw-Secret-42@127.0.0.1:3128".into()),
            ..Config::default()
        };
        let network = Network::load(&config, "http://127.0.0.1:9/logs", &|_| None).unwrap();
        // base64("prxuser:pw-Secret-42")
        assert_eq!(
            network.secrets(),
            ["pw-Secret-42", "Basic cHJ4dXNlcjpwdy1TZWNyZXQtNDI="]
        );
        let scrubber =
            crate::observe::scrub::Scrubber::new(network.secrets().iter().map(String::as_str));
        assert_eq!(
            scrubber.clean("echoed: cHJ4dXNlcjpwdy1TZWNyZXQtNDI= pw-Secret-42", 1000),
            "echoed: [redacted] [redacted]",
            "the token alone is redacted too"
        );
        let direct = Network::load(&Config::default(), "http://127.0.0.1:9/logs", &|_| None);
        assert!(direct.unwrap().secrets().is_empty());
    }
}
