//! Name resolution for the HTTP client, without a thread per request for an IP address.
//!
//! Why it exists: ureq resolves the host before every request, pooled connection or not,
//! and with a timeout set (logship always sets one) its default resolver starts a thread
//! for each lookup so that a hung DNS server cannot hold the request past its deadline. For
//! an endpoint given as an IP address (`http://127.0.0.1:8080`, a sidecar's usual
//! target) there is nothing to look up: that thread cost more than the request's own work
//! (one `clone3` per batch; docs/performance.md). Must never: resolve a name itself (names
//! still go to ureq's resolver, timeout and all), or answer for an address family the
//! configuration excludes.

use std::net::{IpAddr, SocketAddr};

use ureq::config::{Config, IpFamily};
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// ureq's resolver, short-cut for IP literals.
#[derive(Debug, Default)]
pub(crate) struct LiteralFirst(DefaultResolver);

impl Resolver for LiteralFirst {
    fn resolve(
        &self,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        match literal(uri) {
            Some(addr) if wanted(config.ip_family(), &addr) => {
                let mut addrs = self.empty();
                addrs.push(addr);
                Ok(addrs)
            }
            _ => self.0.resolve(uri, config, timeout),
        }
    }
}

/// The socket address of a URI whose host is an IP address (`[..]` for IPv6) and whose
/// port is given or is its scheme's default; `None` for a name or anything unusual.
fn literal(uri: &Uri) -> Option<SocketAddr> {
    let host = uri.host()?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let ip: IpAddr = host.parse().ok()?;
    let port = match (uri.port_u16(), uri.scheme_str()) {
        (Some(port), _) => port,
        (None, Some("http")) => 80,
        (None, Some("https")) => 443,
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

fn wanted(family: IpFamily, addr: &SocketAddr) -> bool {
    match family {
        IpFamily::Ipv4Only => addr.is_ipv4(),
        IpFamily::Ipv6Only => addr.is_ipv6(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(s: &str) -> Uri {
        s.parse().unwrap()
    }

    #[test]
    fn ip_literals_are_answered_without_a_lookup_and_names_are_not() {
        assert_eq!(
            literal(&uri("http://127.0.0.1:8080/logs")),
            Some("127.0.0.1:8080".parse().unwrap())
        );
        assert_eq!(
            literal(&uri("https://[::1]/v1/logs")),
            Some("[::1]:443".parse().unwrap())
        );
        assert_eq!(
            literal(&uri("http://10.0.0.7/")),
            Some("10.0.0.7:80".parse().unwrap())
        );
        assert_eq!(literal(&uri("http://localhost:8080/")), None);
        assert_eq!(literal(&uri("https://intake.example.com/")), None);
        assert_eq!(
            literal(&uri("socks5://127.0.0.1/")),
            None,
            "no default port known"
        );
        assert_eq!(literal(&uri("http://127.0.0.1.example:80/")), None);
    }

    #[test]
    fn an_excluded_family_goes_to_the_normal_resolver() {
        let v6: SocketAddr = "[::1]:80".parse().unwrap();
        let v4: SocketAddr = "127.0.0.1:80".parse().unwrap();
        assert!(!wanted(IpFamily::Ipv4Only, &v6));
        assert!(!wanted(IpFamily::Ipv6Only, &v4));
        assert!(wanted(IpFamily::Any, &v4) && wanted(IpFamily::Any, &v6));
    }
}
