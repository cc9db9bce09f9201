//! Which proxy a pipeline goes through, if any, decided once at `build()`.
//!
//! Why it exists: corporate networks reach SaaS intakes only through an HTTP proxy, and
//! everybody there already has `https_proxy`/`no_proxy` set for curl. This reads them as
//! curl does: for an `https://` endpoint `https_proxy` then `all_proxy`, for `http://`
//! `http_proxy` then `all_proxy` (lower case first, then upper case), skipped when
//! `no_proxy` matches the endpoint's host (`*`; a domain, which also matches its
//! subdomains, with or without a leading `.` or `*.`; an IP address; a CIDR range). A
//! pipeline's `proxy` option overrides all of them: a URL, or `none`. The proxy is
//! reached over plain TCP (`http://`) or TLS (`https://`), and ureq tunnels every request
//! through it with `CONNECT` (HTTPS and plain HTTP alike). Proxy credentials are secrets:
//! they are never shown, only the proxy's host and port.

use std::net::IpAddr;

use crate::config::redact_url;
use crate::error::ConfigError;

/// The outcome: a proxy, or a direct connection, and why.
#[derive(Clone)]
pub(crate) struct ProxyChoice {
    /// The proxy, when one is used.
    pub proxy: Option<ureq::Proxy>,
    /// What `config check` shows: the proxy without credentials and where it came
    /// from, or why the connection is direct.
    pub summary: String,
    /// The proxy's `host:port`, for error messages.
    pub host: Option<String>,
}

/// The variables read for an endpoint with `scheme`, in order.
fn vars_for(scheme: &str) -> &'static [&'static str] {
    if scheme.eq_ignore_ascii_case("https") {
        &["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
    } else {
        &["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"]
    }
}

/// Chooses the proxy for `endpoint` from the `proxy` option (`configured`) and the
/// environment (`env`). A proxy URL that cannot be used fails, naming where it came from.
pub(crate) fn choose(
    configured: Option<&str>,
    endpoint: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ProxyChoice, ConfigError> {
    let direct = |summary: String| ProxyChoice {
        proxy: None,
        summary,
        host: None,
    };
    let Ok(uri) = endpoint.parse::<ureq::http::Uri>() else {
        return Ok(direct("direct".into()));
    };
    let scheme = uri.scheme_str().unwrap_or("http");
    let host = uri.host().unwrap_or("");
    match configured.map(str::trim).filter(|p| !p.is_empty()) {
        Some(p) if p.eq_ignore_ascii_case("none") => {
            return Ok(direct("direct (proxy = \"none\")".into()))
        }
        Some(p) => return build("proxy", p, "the proxy option"),
        None => {}
    }
    let Some((var, url)) = vars_for(scheme).iter().find_map(|&var| {
        env(var)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
            .map(|v| (var, v))
    }) else {
        return Ok(direct("direct (no proxy variable set)".into()));
    };
    let no_proxy = ["no_proxy", "NO_PROXY"]
        .iter()
        .find_map(|&v| env(v).map(|value| (v, value)));
    if let Some((no_var, list)) = &no_proxy {
        if let Some(entry) = no_proxy_match(list, host) {
            return Ok(direct(format!(
                "direct ({no_var} entry `{entry}` matches {host}; {var} not used)"
            )));
        }
    }
    build(var, &url, var)
}

/// A usable proxy from `url`, or an error naming `field`.
fn build(field: &'static str, url: &str, origin: &str) -> Result<ProxyChoice, ConfigError> {
    let shown = redact_url(url);
    let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    if let Some(s) = scheme.as_deref().filter(|s| *s != "http" && *s != "https") {
        return Err(ConfigError::new(
            field,
            &shown,
            format!("{s}:// proxies are not supported"),
        )
        .fix("use an HTTP proxy (http://host:port or https://host:port), or proxy = \"none\"")
        .origin(origin));
    }
    let proxy = ureq::Proxy::new(url).map_err(|_| {
        ConfigError::new(field, &shown, "is not a proxy URL")
            .fix("write http://host:port, http://user:password@host:port, or none")
            .origin(origin)
    })?;
    let host = format!("{}:{}", proxy.host(), proxy.port());
    Ok(ProxyChoice {
        summary: format!("{shown} (from {origin})"),
        host: Some(host),
        proxy: Some(proxy),
    })
}

/// The first entry of a `no_proxy` list that matches `host`, by curl's rules.
pub(crate) fn no_proxy_match<'a>(list: &'a str, host: &str) -> Option<&'a str> {
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    let ip: Option<IpAddr> = host.parse().ok();
    list.split([',', ' ', '\t'])
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .find(|entry| entry_matches(entry, &host, ip))
}

fn entry_matches(entry: &str, host: &str, ip: Option<IpAddr>) -> bool {
    if entry == "*" {
        return true;
    }
    let entry = entry.trim_start_matches('[');
    if let Some((net, bits)) = entry.split_once('/') {
        let net = net.trim_end_matches(']');
        return match (ip, net.parse::<IpAddr>(), bits.parse::<u32>()) {
            (Some(ip), Ok(net), Ok(bits)) => in_cidr(ip, net, bits),
            _ => false,
        };
    }
    // An entry with a port: curl compares the host part only.
    let entry = match entry.rsplit_once(']') {
        Some((addr, _)) => addr,
        None if entry.matches(':').count() == 1 => entry.split(':').next().unwrap_or(entry),
        None => entry,
    };
    if let (Some(ip), Ok(e)) = (ip, entry.parse::<IpAddr>()) {
        return ip == e;
    }
    let domain = entry
        .trim_start_matches("*.")
        .trim_start_matches('.')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    !domain.is_empty()
        && (host == domain
            || (host.len() > domain.len()
                && host.ends_with(&domain)
                && host.as_bytes()[host.len() - domain.len() - 1] == b'.'))
}

fn in_cidr(ip: IpAddr, net: IpAddr, bits: u32) -> bool {
    match (ip, net) {
        (IpAddr::V4(ip), IpAddr::V4(net)) if bits <= 32 => {
            let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            u32::from(ip) & mask == u32::from(net) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(net)) if bits <= 128 => {
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            u128::from(ip) & mask == u128::from(net) & mask
        }
        _ => false,
    }
}

/// What to say when the proxy refused or could not be reached; `None` when `error` is
/// not about the proxy. `proxy` is its `host:port`.
pub(crate) fn describe(error: &ureq::Error, proxy: &str) -> Option<String> {
    match error {
        // 407 is the standard answer; some proxies (tinyproxy) answer wrong credentials
        // with 401.
        ureq::Error::ConnectProxyFailed(reason) => Some(if reason.contains("407") || reason.contains("401") {
            let code = if reason.contains("407") { 407 } else { 401 };
            format!("the proxy {proxy} refused the connection with {code} (proxy authentication required or refused): check the proxy credentials (user:password in the proxy URL)")
        } else if reason.contains("403") {
            format!("the proxy {proxy} refused to connect to the intake with 403 (forbidden): the proxy's rules do not allow this host or port; ask its administrator, or set no_proxy / proxy = \"none\" if the intake is reachable directly")
        } else {
            format!("the proxy {proxy} refused to connect to the intake: {reason}")
        }),
        ureq::Error::Io(io)
            if matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::HostUnreachable
            ) =>
        {
            Some(format!(
                "the proxy {proxy} is unreachable ({io}): check the proxy URL (the proxy option or https_proxy/http_proxy), or set no_proxy for this host"
            ))
        }
        ureq::Error::HostNotFound => Some(format!(
            "the proxy {proxy} is unreachable (host not found): check the proxy URL"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn no_proxy_follows_curls_rules() {
        let m = |list, host| no_proxy_match(list, host).is_some();
        assert!(m("*", "anything.example"));
        assert!(m("example.com", "example.com"));
        assert!(m("example.com", "logs.example.com"));
        assert!(m(".example.com", "example.com"));
        assert!(m(".example.com", "a.b.example.com"));
        assert!(m("*.example.com", "a.example.com"));
        assert!(!m("example.com", "badexample.com"));
        assert!(!m("example.com", "example.com.evil"));
        assert!(m("EXAMPLE.com", "Logs.Example.COM"));
        assert!(m("127.0.0.1", "127.0.0.1"));
        assert!(!m("127.0.0.1", "127.0.0.2"));
        assert!(m("10.0.0.0/8", "10.1.2.3"));
        assert!(!m("10.0.0.0/8", "11.1.2.3"));
        assert!(m("127.0.0.0/8", "127.0.0.1"));
        assert!(m("::1", "[::1]"));
        assert!(m("fd00::/8", "[fd12::1]"));
        assert!(!m("fd00::/8", "[fe12::1]"));
        assert!(m("localhost:8080", "localhost"));
        assert!(m(" foo.test , example.com ", "x.example.com"));
        assert!(!m("", "example.com"));
        assert!(!m("10.0.0.0/33", "10.0.0.1"));
        assert!(!m("10.0.0.0/8", "ten.example"));
    }

    #[test]
    fn variables_are_read_per_scheme_lower_case_first() {
        let e = env(&[
            ("https_proxy", "http://lower:3128"),
            ("HTTPS_PROXY", "http://upper:3128"),
            ("HTTP_PROXY", "http://plain:3128"),
        ]);
        let c = choose(None, "https://intake.example/x", &e).unwrap();
        assert_eq!(c.host.as_deref(), Some("lower:3128"));
        assert!(c.summary.contains("https_proxy"), "{}", c.summary);
        let c = choose(None, "http://intake.example/x", &e).unwrap();
        assert_eq!(c.host.as_deref(), Some("plain:3128"));
        let e = env(&[("ALL_PROXY", "http://all:1")]);
        let c = choose(None, "https://intake.example/x", &e).unwrap();
        assert_eq!(c.host.as_deref(), Some("all:1"));
    }

    #[test]
    fn no_proxy_and_the_option_override_the_variables() {
        let e = env(&[
            ("HTTPS_PROXY", "http://p:3128"),
            ("NO_PROXY", "internal.example,10.0.0.0/8"),
        ]);
        let c = choose(None, "https://logs.internal.example/x", &e).unwrap();
        assert!(c.proxy.is_none());
        assert!(c.summary.contains("NO_PROXY"), "{}", c.summary);
        let c = choose(None, "https://10.9.9.9:8443/x", &e).unwrap();
        assert!(c.proxy.is_none());
        let c = choose(None, "https://saas.example/x", &e).unwrap();
        assert!(c.proxy.is_some());
        let c = choose(Some("none"), "https://saas.example/x", &e).unwrap();
        assert!(c.proxy.is_none());
        let c = choose(
            Some("http://mine:8080"),
            "https://logs.internal.example/",
            &e,
        )
        .unwrap();
        assert_eq!(c.host.as_deref(), Some("mine:8080"));
    }

    #[test]
    fn credentials_never_shown_and_bad_urls_name_their_source() {
        let e = env(&[("https_proxy", "http://bob:hunter2@p.example:3128")]);
        let c = choose(None, "https://x.example/", &e).unwrap();
        assert!(!c.summary.contains("hunter2"), "{}", c.summary);
        assert!(!format!("{:?}", c.proxy).contains("hunter2"));
        let err = choose(Some("socks5://bob:hunter2@p:1080"), "https://x/", &e)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("proxy") && !err.contains("hunter2"), "{err}");
        let err = choose(
            None,
            "https://x/",
            &env(&[("HTTPS_PROXY", "http://a b@:/")]),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(err.contains("HTTPS_PROXY"), "{err}");
    }
}
