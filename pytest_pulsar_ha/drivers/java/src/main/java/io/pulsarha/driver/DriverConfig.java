package io.pulsarha.driver;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The driver's JSON configuration, written by pytest_pulsar_ha/workload/java_config.py (same field names). */
public final class DriverConfig {
    /** One cluster as clients reach it: its proxied service URL and its token (null without auth). */
    public static final class Cluster {
        public String serviceUrl;
        public String token;
    }

    /** The scenario's provider block, as the Java client takes it. */
    public static final class Provider {
        /** auto (AutoClusterFailover), controlled (ControlledClusterFailover) or none (a plain service URL). */
        public String kind = "none";
        public String primary;
        public List<String> secondaries = new ArrayList<>();
        public long checkIntervalMs = 1000;
        public long failoverDelayMs;
        public long switchBackDelayMs;
        /** the URL-provider service (controlled) */
        public String urlProvider;
    }

    public Map<String, Cluster> clusters = new LinkedHashMap<>();
    public String listenerName;
    public Provider provider = new Provider();
    /** consumers connect straight to this cluster (null: through the provider) */
    public String consumeFrom;
    public List<String> topics = new ArrayList<>();
    public int producers = 1;
    /** the subscription of each consumer index */
    public List<String> subscriptions = new ArrayList<>();
    public String subscriptionType = "exclusive";
    public int keys;
    public double ratePerSecond = 10;
    public int messageSize = 100;
    public boolean replicatedSubscriptions = true;
    public int sendTimeoutMs = 30000;
    public long seed;
    public long consumerDelayMs;
    public String initialPosition = "earliest";
    public int operationTimeoutMs = 10000;
    /** the longest reconnect backoff of the clients (0: the client's default, 60 s) */
    public int maxBackoffMs;
    public int setupTimeoutMs = 90000;
    public int closeTimeoutMs = 15000;

    static DriverConfig read(File file) throws IOException {
        ObjectMapper json = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        DriverConfig config = json.readValue(file, DriverConfig.class);
        config.check();
        return config;
    }

    private void check() {
        List<String> problems = new ArrayList<>();
        if (clusters.isEmpty()) {
            problems.add("clusters is empty");
        }
        if (topics.isEmpty()) {
            problems.add("topics is empty");
        }
        if (ratePerSecond <= 0) {
            problems.add("ratePerSecond must be > 0, found " + ratePerSecond);
        }
        for (String name : names()) {
            if (name != null && !clusters.containsKey(name)) {
                problems.add("unknown cluster " + name + " (clusters: " + clusters.keySet() + ")");
            }
        }
        if (!List.of("auto", "controlled", "none").contains(provider.kind)) {
            problems.add("provider.kind must be auto, controlled or none, found " + provider.kind);
        }
        if ("controlled".equals(provider.kind) && provider.urlProvider == null) {
            problems.add("provider.urlProvider is needed by a controlled provider");
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("bad driver configuration: " + String.join("; ", problems));
        }
    }

    private List<String> names() {
        List<String> names = new ArrayList<>();
        names.add(provider.primary);
        names.addAll(provider.secondaries);
        names.add(consumeFrom);
        return names;
    }

    String primary() {
        return provider.primary != null ? provider.primary : clusters.keySet().iterator().next();
    }

    /** The cluster whose service URL this is, or the URL itself when it is none of them. */
    String clusterOf(String serviceUrl) {
        for (Map.Entry<String, Cluster> entry : clusters.entrySet()) {
            if (entry.getValue().serviceUrl.equals(serviceUrl)) {
                return entry.getKey();
            }
        }
        return serviceUrl;
    }
}
