//! What configuration needs to know about Elasticsearch / OpenSearch: the variable its users already
//! set for the key, an example endpoint for the error that says one is missing, and its
//! part of `logship config example`.
//!
//! Why it exists: these facts are the vendor's, so they live in its folder; the registry
//! (`vendors/mod.rs`) hands them to configuration. Must never hold a real secret.

/// The environment variable this vendor's own users set for the API key, read before
/// `LOGSHIP_API_KEY` (`None`: no key of its own).
// Optional: a cluster may take basic auth, an API key, or nothing.
pub(crate) const API_KEY_ENV: Option<&str> = None;

/// An example endpoint for the error that says one is missing (`None`: the vendor has a
/// public default URL, so none is required).
pub(crate) const ENDPOINT_EXAMPLE: Option<&str> = Some("http://es.example.internal:9200");

/// This vendor's lines of `logship config example`.
pub(crate) fn write_example(out: &mut String) {
    out.push_str("# Required: the cluster (or a coordinating node); /_bulk is added.\n");
    out.push_str("endpoint = \"https://es.example.internal:9200\"\n");
    out.push_str("# A data stream or index; a UTC date pattern (%Y %m %d %H) is allowed.\n");
    out.push_str("# index = \"logs-logship-default\"\n");
    out.push_str("# Basic auth (the password is a secret), or api_key for `ApiKey` auth.\n");
    out.push_str("# username = \"logship\"\n");
    out.push_str("# password = \"${env:LOGSHIP_PASSWORD}\"\n");
    out.push_str("# api_key = \"${env:LOGSHIP_API_KEY}\"\n");
}
