//! The SASL and TLS settings of the Kafka inputs, as librdkafka takes them.
//!
//! Why it exists: the `listen.kafka_*` keys are checked once by the settings engine
//! (`settings/kafka_input.rs`) and turned into librdkafka's properties by the library (the
//! same mapping as the output's); the consumer only applies them. Must never: show the
//! password (`Debug` names the properties, not their values).

/// librdkafka's security properties of the Kafka inputs (the password among them).
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct Security(pub Vec<(&'static str, String)>);

impl std::fmt::Debug for Security {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(name, _)| name))
            .finish()
    }
}

#[cfg(feature = "kafka")]
impl Security {
    /// Sets these properties on `settings`.
    pub(crate) fn apply(&self, settings: &mut rdkafka::config::ClientConfig) {
        for (name, value) in &self.0 {
            settings.set(*name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_names_the_properties_never_the_password() {
        let s = Security(vec![
            ("security.protocol", "sasl_ssl".into()),
            ("sasl.password", "pw-secret-1".into()),
        ]);
        let shown = format!("{s:?}");
        assert!(shown.contains("sasl.password") && !shown.contains("pw-secret-1"));
    }
}
