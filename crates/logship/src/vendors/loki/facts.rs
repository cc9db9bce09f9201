//! What configuration needs to know about Grafana Loki: the variable its users already
//! set for the key, an example endpoint for the error that says one is missing, and its
//! part of `logship config example`.
//!
//! Why it exists: these facts are the vendor's, so they live in its folder; the registry
//! (`vendors/mod.rs`) hands them to configuration. Must never hold a real secret.

/// The environment variable this vendor's own users set for the API key, read before
/// `LOGSHIP_API_KEY` (`None`: no key of its own).
pub(crate) const API_KEY_ENV: Option<&str> = None;

/// An example endpoint for the error that says one is missing (`None`: the vendor has a
/// public default URL, so none is required).
pub(crate) const ENDPOINT_EXAMPLE: Option<&str> = Some("http://loki:3100");

/// This vendor's lines of `logship config example`.
pub(crate) fn write_example(out: &mut String) {
    out.push_str("# Required: your Loki or gateway (the standard path is added).\n");
    out.push_str("endpoint = \"http://loki:3100\"\n");
    out.push_str("# Static stream labels besides service and level: keep them few and\n");
    out.push_str("# low-cardinality (fields travel as structured metadata).\n");
    out.push_str("loki_labels = [\"env=prod\"]\n");
    out.push_str("# tenant_id = \"team-a\"    # sent as X-Scope-OrgID\n");
    out.push_str("# username = \"123456\"    # basic auth, e.g. Grafana Cloud\n");
    out.push_str("# password: set LOGSHIP_PASSWORD (a secret, never printed)\n");
    crate::config::example::defaults(out, &["max_line_bytes"]);
}
