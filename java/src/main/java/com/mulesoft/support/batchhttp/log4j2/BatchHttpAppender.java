package com.mulesoft.support.batchhttp.log4j2;

import dev.logship.log4j2.LogshipAppender;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.Core;
import org.apache.logging.log4j.core.config.plugins.Plugin;
import org.apache.logging.log4j.core.config.plugins.PluginBuilderFactory;

/**
 * {@code <BatchHttp>}: logship's {@code <Logship>} appender under the reference batching
 * appender's element name and package, so that an existing log4j2.xml (with its
 * {@code packages="com.mulesoft.support.batchhttp.log4j2"}) keeps working when only the jar
 * changes. The vendor is datadog unless given, as with the reference appender.
 */
@Plugin(name = "BatchHttp", category = Core.CATEGORY_NAME, elementType = Appender.ELEMENT_TYPE, printObject = true)
public final class BatchHttpAppender extends LogshipAppender {
    private BatchHttpAppender() {
        super(null, null, null, true, null);
    }

    /** The {@code <Logship>} builder, datadog by default. */
    @PluginBuilderFactory
    public static <B extends LogshipAppender.Builder<B>> B newBuilder() {
        B builder = LogshipAppender.newBuilder();
        return builder.setDefaultVendor("datadog");
    }
}
