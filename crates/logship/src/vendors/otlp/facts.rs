//! What configuration needs to know about an OpenTelemetry collector: the variable its users already
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
pub(crate) const ENDPOINT_EXAMPLE: Option<&str> = Some("http://otel-collector:4318");

/// This vendor's lines of `logship config example`.
pub(crate) fn write_example(out: &mut String) {
    out.push_str(
        "# Required: your OpenTelemetry Collector's OTLP/HTTP receiver (/v1/logs is added).\n",
    );
    out.push_str("endpoint = \"http://otel-collector:4318\"\n");
    out.push_str("# protobuf (application/x-protobuf) or json (application/json).\n");
    out.push_str("otlp_encoding = \"protobuf\"\n");
}
