package io.pulsarha.driver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.time.Instant;

/**
 * The driver's only output: one JSON object per line on stdout. History events carry the columns of
 * docs/history-format.md (every column, null when absent); control lines carry {"control": ...} and tell the
 * Python side where the run is (started, sending_stopped, stopped, error).
 */
final class History {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] COLUMNS = {
        "cluster", "topic", "subscription", "producer", "seq", "key", "message_id", "detail"};

    private final PrintStream out;

    History(PrintStream out) {
        this.out = out;
    }

    /** Wall-clock nanoseconds since the epoch (the history's ts_ns), microsecond resolution on Linux. */
    static long nowNs() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    static ObjectNode detail() {
        return JSON.createObjectNode();
    }

    /** One event: type, process, then column/value pairs (values: String, Long, Integer or null). */
    void event(long tsNs, String type, String process, Object... columns) {
        ObjectNode line = JSON.createObjectNode();
        line.put("ts_ns", tsNs);
        line.put("type", type);
        line.put("process", process);
        for (String column : COLUMNS) {
            line.putNull(column);
        }
        for (int i = 0; i + 1 < columns.length; i += 2) {
            String column = (String) columns[i];
            Object value = columns[i + 1];
            if (value == null) {
                line.putNull(column);
            } else if (value instanceof Long number) {
                line.put(column, number);
            } else if (value instanceof Integer number) {
                line.put(column, number.longValue());
            } else {
                line.put(column, value.toString());
            }
        }
        write(line.toString());
    }

    void control(String what, String detail) {
        ObjectNode line = JSON.createObjectNode();
        line.put("control", what);
        line.put("ts_ns", nowNs());
        if (detail != null) {
            line.put("detail", detail);
        }
        write(line.toString());
    }

    private void write(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}
