package io.pulsarha.driver;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Java's providers say what they do only in their log. This stream sits in front of stderr (where the client
 * logs, slf4j-simple): every line goes on to stderr, and the providers' lines become history data: a failed
 * probe ("Failed to probe available, url: ...") a {@code probe} event, and a switch decision ("... it has been
 * down for N ms, switch to the service ..." / "... has been recover for N ms, switch back ...") the detail
 * of the next {@code switch} event (with N: Java's measured delay, a whole number of check intervals).
 */
final class ProviderLog extends OutputStream {
    private static final Pattern FAILED_PROBE = Pattern.compile("Failed to probe available, url: (\\S+)");
    private static final Pattern DOWN = Pattern.compile(
            "Current Pulsar service is (\\S+), it has been down for (\\d+) ms, switch to the service (\\S+)\\.");
    private static final Pattern RECOVERED = Pattern.compile(
            "the primary service: (\\S+) has been recover for (\\d+) ms, switch back to the primary service");
    private static final Pattern CONTROLLED = Pattern.compile("Switch Pulsar service url from (.*) to (.*)$");

    private final PrintStream target;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private volatile History history;
    private volatile DriverConfig config;
    /** the provider's last switch decision, taken by the next switch event */
    final AtomicReference<String> decision = new AtomicReference<>();

    ProviderLog(PrintStream target) {
        this.target = target;
    }

    /** Start turning lines into events (before this, lines only go on to stderr). */
    void attach(History history, DriverConfig config) {
        this.config = config;
        this.history = history;
    }

    @Override
    public synchronized void write(int b) {
        target.write(b);
        if (b == '\n') {
            String text = line.toString(StandardCharsets.UTF_8);
            line.reset();
            parse(text);
        } else {
            line.write(b);
        }
    }

    @Override
    public synchronized void write(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            write(bytes[i]);
        }
    }

    @Override
    public void flush() {
        target.flush();
    }

    private void parse(String text) {
        History out = history;
        DriverConfig cfg = config;
        if (out == null || cfg == null) {
            return;
        }
        Matcher m = FAILED_PROBE.matcher(text);
        if (m.find()) {
            var detail = History.detail().put("ok", false).put("probe", "tcp").put("source", "java log");
            out.event(History.nowNs(), "probe", "provider", "cluster", cfg.clusterOf(m.group(1)),
                    "detail", detail.toString());
            return;
        }
        m = DOWN.matcher(text);
        if (m.find()) {
            decision.set(History.detail()
                    .put("java_log", "down for " + m.group(2) + " ms")
                    .put("down_for_ms", Long.parseLong(m.group(2)))
                    .toString());
            return;
        }
        m = RECOVERED.matcher(text);
        if (m.find()) {
            decision.set(History.detail()
                    .put("java_log", "recovered for " + m.group(2) + " ms")
                    .put("recovered_for_ms", Long.parseLong(m.group(2)))
                    .toString());
            return;
        }
        m = CONTROLLED.matcher(text);
        if (m.find()) {
            decision.set(History.detail().put("java_log", "switch from " + m.group(1) + " to " + m.group(2))
                    .toString());
        }
    }
}
