package dev.logship.jvm;

import static org.junit.jupiter.api.Assertions.assertNull;

import dev.logship.it.Intake;
import java.util.ArrayList;
import java.util.List;

/** Opens a Datadog pipeline to a test intake, spill off, for the tests of this package. */
final class TestPipelines {
    private TestPipelines() {}

    /** A pipeline to {@code intake} with {@code more} attributes (name, value, ...) added. */
    static Pipeline open(Intake intake, String... more) {
        List<String> attributes = new ArrayList<>(List.of("vendor", "datadog", "site", intake.url,
                "apiKey", "k", "spillEnabled", "false"));
        attributes.addAll(List.of(more));
        Pipeline p = Pipeline.open(attributes);
        assertNull(p.failure(), "the native library loaded");
        return p;
    }
}
