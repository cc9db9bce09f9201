//! What configuration needs to know about Splunk HEC: the variable its users already
//! set for the key, an example endpoint for the error that says one is missing, and its
//! part of `logship config example`.
//!
//! Why it exists: these facts are the vendor's, so they live in its folder; the registry
//! (`vendors/mod.rs`) hands them to configuration. Must never hold a real secret.

/// The environment variable this vendor's own users set for the API key, read before
/// `LOGSHIP_API_KEY` (`None`: no key of its own).
pub(crate) const API_KEY_ENV: Option<&str> = Some("SPLUNK_HEC_TOKEN");

/// An example endpoint for the error that says one is missing (`None`: the vendor has a
/// public default URL, so none is required).
pub(crate) const ENDPOINT_EXAMPLE: Option<&str> = Some("https://splunk.example.com:8088");

/// This vendor's lines of `logship config example`.
pub(crate) fn write_example(out: &mut String) {
    out.push_str("# Required: your HTTP Event Collector (the standard path is added).\n");
    out.push_str("endpoint = \"https://splunk.example.com:8088\"\n");
    out.push_str(
        "# splunk_index = \"main\"\n# splunk_sourcetype = \"_json\"\n# splunk_channel = \"auto\"\n",
    );
    out.push_str("# splunk_ack = true  # the token has indexer acknowledgement on\n# splunk_ack_timeout_ms = 300000\n");
    out.push_str("# max_request_bytes = 1000000    # the server's max_content_length\n");
}
